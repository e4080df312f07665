import { Contract, JsonRpcProvider } from 'ethers';
import { Client } from 'pg';
import { assetCollectionArtifact } from '@app/chains';

/** An ethers provider of the test's own, for reading chain state independently of the service. */
export function evmReader(url: string): JsonRpcProvider {
  return new JsonRpcProvider(url, undefined, { cacheTimeout: -1, staticNetwork: true });
}

export function collectionAt(provider: JsonRpcProvider, address: string): Contract {
  return new Contract(address, assetCollectionArtifact.abi, provider);
}

/** Runs one query against the service's database. */
export async function queryDatabase<T extends Record<string, unknown>>(
  databaseUrl: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
