import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { AuditEventRepository, createDataSource, migrate, verifyAuditLog } from '@app/database';
import { insertAccountRow } from '@test/support/account-rows';
import { startTestServices, type TestServices } from '@test/support/test-services';

describe('migrations', () => {
  let services: TestServices;

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await services.stop();
  });

  it('create the schema once and are a no-op the second time', async () => {
    expect(await migrate(services.databaseUrl)).toEqual([]);
    const client = new Client({ connectionString: services.databaseUrl });
    await client.connect();
    try {
      const tables = await client.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
      );
      expect(tables.rows.map((row) => row.tablename)).toEqual(
        expect.arrayContaining([
          'accounts',
          'api_keys',
          'created_wallets',
          'managed_wallets',
          'sessions',
        ]),
      );
      const secretColumns = await client.query(
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_schema = 'public' AND column_name ILIKE '%secret%'`,
      );
      // Every column that holds a secret is a ciphertext (or the id of the key that sealed it).
      const columns = secretColumns.rows.map((row) => `${row.table_name}.${row.column_name}`);
      expect(columns.sort()).toEqual([
        'managed_wallets.secret_ciphertext',
        'managed_wallets.secret_key_id',
        'operations.new_mint_secret',
        'webhook_endpoints.previous_secret_ciphertext',
        'webhook_endpoints.previous_secret_expires_at',
        'webhook_endpoints.previous_secret_key_id',
        'webhook_endpoints.secret_ciphertext',
        'webhook_endpoints.secret_key_id',
      ]);
    } finally {
      await client.end();
    }
  });

  it("carry the rows written before session 20's migrations through them", async () => {
    // Back to the schema of 1767000000000 (each since has a way down).
    await acrossMigrationsSince('LeanOperationEvents1767000000000', async (dataSource) => {
      const accountId = await insertAccountRow(dataSource, 'migrated');
      const evm = 'evm:31337:http://127.0.0.1:8545';
      const solana = 'solana:http://127.0.0.1:8899';
      const wires = { [evm]: '0x02f8b0820539', [solana]: 'AQIDBAUGBwgJCgsMDQ4PEA==' };
      const settledBefore = randomUUID();
      for (const [chainKey, wire] of Object.entries(wires)) {
        const id = chainKey === evm ? settledBefore : randomUUID();
        const txHash = `tx-${id}`;
        await dataSource.query(
          `INSERT INTO transactions (chain_key, tx_hash, signed_tx) VALUES ($1, $2, $3)`,
          [chainKey, txHash, wire],
        );
        await dataSource.query(
          `INSERT INTO operations (id, account_id, kind, network, chain_key, status, intent, signer,
             tx_hash, nonce, updated_at)
           VALUES ($1, $2, 'token.mint', 'base', $3, $4, '{}', 'signer', NULL, NULL,
             '2026-01-01T00:00:00Z')`,
          [id, accountId, chainKey, chainKey === evm ? 'confirmed' : 'queued'],
        );
      }
      return async () => {
        const stored = await dataSource.query<{ chain_key: string; wire: string; bytes: number }[]>(
          `SELECT chain_key, transaction_wire_text(chain_key, signed_tx) AS wire,
                length(signed_tx) AS bytes
         FROM transactions WHERE chain_key = ANY($1) ORDER BY chain_key`,
          [[evm, solana]],
        );
        expect(stored).toEqual([
          { chain_key: evm, wire: wires[evm], bytes: 6 },
          { chain_key: solana, wire: wires[solana], bytes: 16 },
        ]);
        // A settled row of before has its settlement time (the constraint's backfill).
        const [settled] = await dataSource.query<{ settled_at: Date }[]>(
          `SELECT settled_at FROM operations WHERE id = $1`,
          [settledBefore],
        );
        expect(settled.settled_at).toEqual(new Date('2026-01-01T00:00:00Z'));
      };
    });
  });

  it('carry events, their deliveries and audit rows through 1767500000000', async () => {
    await acrossMigrationsSince('SubmittedInPlace1767400000000', async (dataSource) => {
      const accountId = await insertAccountRow(dataSource, 'keyed');
      await dataSource.query(
        `INSERT INTO account_events (account_id, type, data) VALUES ($1, 'wallet.balance_low', '{}')`,
        [accountId],
      );
      const endpointId = randomUUID();
      await dataSource.query(
        `INSERT INTO webhook_endpoints (id, account_id, url, secret_ciphertext, secret_key_id)
         VALUES ($1, $2, 'http://127.0.0.1:9/x', 'sealed', 'k')`,
        [endpointId, accountId],
      );
      await dataSource.query(
        `INSERT INTO webhook_deliveries (endpoint_id, account_id, event_id, event_seq, event_type)
         SELECT $1, account_id, id, seq, type FROM account_events WHERE account_id = $2`,
        [endpointId, accountId],
      );
      await dataSource.query(
        `INSERT INTO audit_events (account_id, type, details) VALUES ($1, 'key.rotated', '{}')`,
        [accountId],
      );
      return async () => {
        const delivered = await dataSource.query<{ seq: string; type: string }[]>(
          `SELECT e.seq::text, e.type FROM webhook_deliveries d
           JOIN account_events e ON e.account_id = d.account_id AND e.seq = d.event_seq
         WHERE d.endpoint_id = $1`,
          [endpointId],
        );
        expect(delivered).toEqual([{ seq: expect.any(String), type: 'wallet.balance_low' }]);
        const keys = await dataSource.query<{ key: string }[]>(
          `SELECT conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) AS key
         FROM pg_constraint WHERE contype = 'p' AND conrelid IN
           ('account_events'::regclass, 'audit_events'::regclass) ORDER BY 1`,
        );
        expect(keys.map((row) => row.key)).toEqual([
          'account_events PRIMARY KEY (account_id, seq)',
          'audit_events PRIMARY KEY (account_id, seq)',
        ]);
        const [audited] = await dataSource.query<{ count: number }[]>(
          `SELECT count(*)::int AS count FROM audit_events WHERE account_id = $1`,
          [accountId],
        );
        expect(audited.count).toBeGreaterThanOrEqual(1);
      };
    });
  });

  it('clears the new mint secrets of operations settled before 1767600000000, and only theirs', async () => {
    await acrossMigrationsSince('FewerIndexEntries1767500000000', async (dataSource) => {
      const accountId = await insertAccountRow(dataSource, 'secrets');
      const [settled, signed] = [randomUUID(), randomUUID()];
      for (const [id, status] of [
        [settled, 'confirmed'],
        [signed, 'signed'],
      ]) {
        await dataSource.query(
          `INSERT INTO operations (id, account_id, kind, network, chain_key, status, intent, signer,
             nonce, settled_at, new_mint_secret, new_mint_key_id)
           VALUES ($1, $2, 'nft.mint', 'solana', 'solana:x', $3, '{}', 'signer', 1,
             CASE WHEN $3 = 'confirmed' THEN now() END, '\\x0102', 'k1')`,
          [id, accountId, status],
        );
      }
      return async () => {
        const rows = await dataSource.query<{ id: string; secret: boolean; key: string | null }[]>(
          `SELECT id, new_mint_secret IS NOT NULL AS secret, new_mint_key_id AS key
           FROM operations WHERE account_id = $1`,
          [accountId],
        );
        expect(Object.fromEntries(rows.map((row) => [row.id, [row.secret, row.key]]))).toEqual({
          [settled]: [false, null],
          [signed]: [true, 'k1'],
        });
      };
    });
  });

  it('keeps an audit trail written before 1768000000000 verifiable, and links new entries on', async () => {
    await acrossMigrationsSince('OperationPagesWithRoom1767900000000', async (dataSource) => {
      const accountId = await insertAccountRow(dataSource, 'trail');
      for (const type of ['login.succeeded', 'login.failed']) {
        await dataSource.query(
          `INSERT INTO audit_events (account_id, type, details) VALUES ($1, $2, '{}')`,
          [accountId, type],
        );
      }
      const before = await dataSource.query<{ seq: string; prev_hash: string; hash: string }[]>(
        `SELECT seq::text, prev_hash, hash FROM audit_events WHERE account_id = $1 ORDER BY seq`,
        [accountId],
      );
      return async () => {
        const events = new AuditEventRepository(dataSource);
        await events.record({ accountId, type: 'session.ended' });
        const listed = (await events.listForAccount(accountId, 10)).entries.reverse();
        expect(listed.slice(0, 2).map((entry) => [entry.seq, entry.prevHash, entry.hash])).toEqual(
          before.map((row) => [row.seq, row.prev_hash, row.hash]),
        );
        expect(listed[2]).toMatchObject({ seq: '3', prevHash: before[1].hash });
        const verified = await verifyAuditLog(events);
        expect(verified.breaks.filter((found) => found.accountId === accountId)).toEqual([]);
      };
    });
  });

  /**
   * Undoes the migrations after `name`, lets `arrange` write rows in that older schema, migrates
   * up again and runs the check `arrange` returned.
   */
  async function acrossMigrationsSince(
    name: string,
    arrange: (dataSource: DataSource) => Promise<() => Promise<void>>,
  ): Promise<void> {
    const dataSource = await createDataSource(services.databaseUrl).initialize();
    try {
      const undone = await undoUntil(dataSource, name);
      const check = await arrange(dataSource);
      expect(await migrate(services.databaseUrl)).toHaveLength(undone);
      await check();
    } finally {
      await dataSource.destroy();
    }
  }
});

/** Undoes the latest migrations until `name` is the last applied; returns how many it undid. */
async function undoUntil(dataSource: DataSource, name: string): Promise<number> {
  for (let undone = 0; ; undone++) {
    const [last] = await dataSource.query<{ name: string }[]>(
      `SELECT name FROM migrations ORDER BY timestamp DESC LIMIT 1`,
    );
    if (last.name === name) return undone;
    await dataSource.undoLastMigration({ transaction: 'each' });
  }
}
