import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { migrate } from '@app/database';
import { resetLocalState, startLocalChains } from '@app/localnet';
import { rpcCall } from './solana-fixtures';

jest.setTimeout(120_000);

const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function databaseUrl(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function sql<T>(url: string, query: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('a fresh start (npm run local -- --fresh)', () => {
  const suffix = randomBytes(4).toString('hex');
  const database = `fresh_start_${suffix}`;
  const dbUrl = databaseUrl(database);
  const prefix = `fresh-start-${suffix}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'localnet-fresh-'));
  const redis = new Redis(REDIS_URL);

  afterAll(async () => {
    await redis.del(`${prefix}:job`, `${prefix}-other:job`);
    redis.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
    await sql(databaseUrl('postgres'), `DROP DATABASE IF EXISTS "${database}"`);
  });

  it('leaves no chain state, no database rows and no Redis keys of the old chains behind', async () => {
    const evmAddress = '0x00000000000000000000000000000000000000bb';
    const solanaOwner = 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS';
    const applied = await migrate(dbUrl);
    await sql(dbUrl, 'CREATE TABLE recorded_asset (id int); INSERT INTO recorded_asset VALUES (1)');
    await redis.set(`${prefix}:job`, 'an operation of the old database');
    await redis.set(`${prefix}-other:job`, 'another deployment');
    const before = await startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0, dataDir });
    await rpcCall(before.evmRpcUrl, 'anvil_setBalance', [evmAddress, '0x2a']);
    await rpcCall(before.solanaRpcUrl, 'requestAirdrop', [solanaOwner, 2_000_000]);
    await before.stop();

    await resetLocalState({
      databaseUrl: dbUrl,
      redisUrl: REDIS_URL,
      redisPrefix: prefix,
      dataDir,
    });

    expect(await migrate(dbUrl)).toEqual(applied);
    const tables = await sql(dbUrl, "SELECT 1 FROM pg_tables WHERE tablename = 'recorded_asset'");
    expect(tables).toHaveLength(0);
    expect(await redis.exists(`${prefix}:job`)).toBe(0);
    expect(await redis.exists(`${prefix}-other:job`)).toBe(1);
    const after = await startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0, dataDir });
    try {
      const balance = await rpcCall(after.evmRpcUrl, 'eth_getBalance', [evmAddress, 'latest']);
      expect(balance.result).toBe('0x0');
      const lamports = await rpcCall(after.solanaRpcUrl, 'getBalance', [solanaOwner]);
      expect(lamports).toMatchObject({ result: { value: 0 } });
    } finally {
      await after.stop();
    }
  });
});
