/**
 * `npm run local -- --fresh`: new chains and a database that agrees with them. New chains with the
 * old database would list wallets, tokens and NFTs that no longer exist on chain (and wallets
 * whose funding never happened), so the database, the service's Redis keys (queued jobs name
 * operations of that database) and both chains' saved state go together. anvil's cost per block
 * grows with the chain, so this is how a long-used local chain becomes quick again.
 */
import { rmSync } from 'node:fs';
import Redis from 'ioredis';
import { Client } from 'pg';

export interface LocalState {
  databaseUrl: string;
  redisUrl: string;
  /** Every Redis key of the service starts with `<prefix>:`; other keys are left alone. */
  redisPrefix: string;
  /** The chains' saved state (anvil's dump, the Solana snapshot). */
  dataDir: string;
}

export async function resetLocalState(state: LocalState): Promise<void> {
  await dropDatabaseObjects(state.databaseUrl);
  await deleteRedisKeys(state.redisUrl, state.redisPrefix);
  rmSync(state.dataDir, { recursive: true, force: true });
}

/** The public schema with its tables and migration records; `migrate` rebuilds it. */
async function dropDatabaseObjects(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  try {
    await client.connect();
  } catch (error: unknown) {
    // A database that does not exist yet has nothing to reset.
    if ((error as { code?: string }).code === '3D000') return;
    throw error;
  }
  try {
    await client.query('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
  } finally {
    await client.end();
  }
}

async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:*`;
    for await (const keys of redis.scanStream({ match: pattern, count: 500 })) {
      if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
    }
  } finally {
    redis.disconnect();
  }
}
