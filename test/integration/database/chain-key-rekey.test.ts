import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AssetIntent } from '@app/common';
import {
  ChainKeyRepository,
  createDataSource,
  dataSourceOptions,
  OperationRepository,
  rekeyChainsToIdentities,
} from '@app/database';
import { insertAccountRow } from '@test/support/account-rows';
import { insertAssetRow } from '@test/support/asset-rows';
import { newOperationEntity } from '@test/support/operation-factory';
import { evmWire } from '@test/support/wire-fixtures';
import { scopeOf } from '@test/support/work-scope';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const URL_KEY = 'evm:84532:https://legacy-provider.example/v2/secret-api-key';

/**
 * `npm run chain-keys:rekey`: a deployment whose chain was pinned under a key made of its RPC URL
 * (rows stored before keys were pinned) moves every row of it to the chain's identity, so the URL
 * and the API key in it are in no row any more, and nothing of the chain is left behind.
 */
describe('chain keys moved to their identity', () => {
  let services: TestServices;
  let dataSource: DataSource;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await services.stop();
  });

  const oneConnection = () =>
    new DataSource(dataSourceOptions(services.databaseUrl, 1)).initialize();

  async function rekey() {
    const own = await oneConnection();
    try {
      return await rekeyChainsToIdentities(own);
    } finally {
      await own.destroy();
    }
  }

  it('moves every row of a chain keyed by its URL, and refuses while another session is open', async () => {
    await dataSource.query(
      `INSERT INTO chain_keys (identity, chain_key) VALUES ('evm:84532', $1), ('evm:80002', 'evm:80002')`,
      [URL_KEY],
    );
    const accountId = await insertAccountRow(dataSource, 'rekey');
    await insertAssetRow(
      dataSource,
      { accountId, kind: 'token', chainKey: URL_KEY, address: '0xtoken' },
      { kind: 'token.create', name: 'T', symbol: 'T', decimals: 6, initialSupply: '0' } as never,
    );
    const operations = new OperationRepository(dataSource);
    const mint = newOperationEntity(accountId, { kind: 'token.mint' } as AssetIntent, {
      chainKey: URL_KEY,
    });
    await operations.insert(scopeOf(dataSource.manager), mint);
    await dataSource.transaction((manager) =>
      operations.markSignedMany(
        scopeOf(manager),
        [{ id: mint.id, nonce: 0n, signedTx: evmWire('0xaaa1'), txHash: '0xaaa1' }],
        {},
      ),
    );
    await operations.markSubmitted(mint.id);
    await dataSource.query(
      `INSERT INTO nonce_ledger (chain_key, address, next_nonce) VALUES ($1, '0xowner', 1)`,
      [URL_KEY],
    );
    await dataSource.query(
      `INSERT INTO batches (id, account_id, kind, network, chain_key, asset, signer, total, created_at)
       VALUES ($1, $2, 'token.airdrop', 'base', $3, '0xtoken', '0xowner', 1, now())`,
      [randomUUID(), accountId, URL_KEY],
    );

    await expect(rekey()).rejects.toThrow(/stop every API and worker process first/);
    expect(await rowsUnder('evm:84532')).toBe(0);

    await dataSource.destroy();
    expect(await rekey()).toEqual([
      {
        identity: 'evm:84532',
        rows: {
          transactions: 1,
          operation_transactions: 1,
          operations: 1,
          assets: 1,
          nonce_ledger: 1,
          batches: 1,
        },
      },
    ]);
    expect(await rekey()).toEqual([]);

    dataSource = await createDataSource(services.databaseUrl).initialize();
    expect(await rowsUnder(URL_KEY)).toBe(0);
    expect(await rowsUnder('evm:84532')).toBe(6);
    // The operation still reaches its transaction, and a start pins what the table says.
    expect(await new OperationRepository(dataSource).listTransactions(mint.id)).toEqual([
      expect.objectContaining({ txHash: '0xaaa1', nonce: '0' }),
    ]);
    expect(
      await new ChainKeyRepository(dataSource).pin(
        new Map([
          ['evm:84532', URL_KEY],
          ['evm:80002', 'evm:80002:https://rpc-amoy.polygon.technology'],
        ]),
      ),
    ).toEqual(
      new Map([
        ['evm:84532', 'evm:84532'],
        ['evm:80002', 'evm:80002'],
      ]),
    );
  });

  /** Rows under this key in every table with a chain key (the schema's, not the rekey's list). */
  async function rowsUnder(chainKey: string): Promise<number> {
    const tables = await dataSource.query<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.columns
       WHERE table_schema = 'public' AND column_name = 'chain_key' AND table_name <> 'chain_keys'`,
    );
    // A new table with a chain key fails here until the rekeying moves its rows too.
    expect(tables).toHaveLength(6);
    let total = 0;
    for (const { table_name: table } of tables) {
      const [{ count }] = await dataSource.query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM ${table} WHERE chain_key = $1`,
        [chainKey],
      );
      total += count;
    }
    return total;
  }
});
