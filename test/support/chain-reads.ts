import { VersionedTransaction, type Connection, type VersionedMessage } from '@solana/web3.js';
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

const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const SET_COMPUTE_UNIT_PRICE = 3;

/** What a Solana message says beyond its asset instructions: its memos and compute-unit price. */
export interface SolanaMessageFacts {
  memos: string[];
  /** Micro-lamports per compute unit; null without a SetComputeUnitPrice. */
  computeUnitPrice: number | null;
}

export function solanaMessageFacts(message: VersionedMessage): SolanaMessageFacts {
  const facts: SolanaMessageFacts = { memos: [], computeUnitPrice: null };
  for (const ix of message.compiledInstructions) {
    const program = message.staticAccountKeys[ix.programIdIndex].toBase58();
    const data = Buffer.from(ix.data);
    if (program === MEMO_PROGRAM) facts.memos.push(data.toString('utf8'));
    if (program === COMPUTE_BUDGET_PROGRAM && data[0] === SET_COMPUTE_UNIT_PRICE) {
      facts.computeUnitPrice = Number(data.readBigUInt64LE(1));
    }
  }
  return facts;
}

/** The facts of signed wire bytes as the service stored them (base64). */
export function solanaWireFacts(wire: string): SolanaMessageFacts {
  return solanaMessageFacts(VersionedTransaction.deserialize(Buffer.from(wire, 'base64')).message);
}

/** The facts of a transaction as the chain recorded it, with its logs. */
export async function landedSolanaTransaction(
  connection: Connection,
  signature: string,
): Promise<SolanaMessageFacts & { logs: string[] }> {
  const landed = await connection.getTransaction(signature, {
    commitment: 'confirmed',
    maxSupportedTransactionVersion: 0,
  });
  if (!landed) throw new Error(`${signature} has not landed`);
  return {
    ...solanaMessageFacts(landed.transaction.message),
    logs: landed.meta?.logMessages ?? [],
  };
}
