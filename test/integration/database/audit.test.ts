import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AssetIntent } from '@app/common';
import { Client } from 'pg';
import {
  ApiKeyRepository,
  AuditEventRepository,
  auditEntryHash,
  createDataSource,
  GENESIS_HASH,
  OperationRepository,
  SolanaOperationRepository,
  verifyAuditLog,
  type AuditEntry,
  type StoredAuditEntry,
} from '@app/database';
import { scopeOf } from '@test/support/work-scope';
import { runAuditVerify } from '@test/support/audit-verify';
import { newOperationEntity } from '@test/support/operation-factory';
import { insertAccountRow } from '@test/support/account-rows';
import { startTestServices, type TestServices } from '@test/support/test-services';
import { evmWire, solanaWire } from '@test/support/wire-fixtures';

jest.setTimeout(120_000);

/**
 * The audit log in Postgres: a per-account hash chain written by the database, which stays one
 * chain under concurrent writers, refuses updates and deletes, records every signing with a
 * managed key, and whose verification names the entry a superuser tampered with.
 */
describe('audit log', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let events: AuditEventRepository;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    events = new AuditEventRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  const newAccount = () => insertAccountRow(dataSource, 'audit');

  async function chainOf(accountId: string): Promise<StoredAuditEntry[]> {
    const entries: StoredAuditEntry[] = [];
    for await (const entry of events.walk(7)) {
      if (entry.accountId === accountId) entries.push(entry);
    }
    return entries;
  }

  async function breaksOf(accountId: string) {
    const result = await verifyAuditLog(events);
    return result.breaks.filter((found) => found.accountId === accountId);
  }

  /** As a superuser would: with the append-only triggers off, for this transaction only. */
  function tamper(sql: string, params: unknown[]): Promise<void> {
    return dataSource.transaction(async (manager) => {
      await manager.query(`SET LOCAL session_replication_role = replica`);
      await manager.query(sql, params);
    });
  }

  it('numbers, stamps and links each entry of an account from the genesis hash', async () => {
    const accountId = await newAccount();
    await events.record({ accountId, type: 'account.created', details: { email: 'a@b.c' } });
    await events.record({ accountId, type: 'login.failed' });
    await events.record({ accountId, type: 'api_key.issued', details: { prefix: 'ais_abc' } });

    const chain = await chainOf(accountId);
    expect(chain.map((entry) => [entry.seq, entry.type])).toEqual([
      ['1', 'account.created'],
      ['2', 'login.failed'],
      ['3', 'api_key.issued'],
    ]);
    for (const [index, entry] of chain.entries()) {
      // The database's hash is the one the verifier recomputes, over the hash before it.
      const prevHash = index === 0 ? GENESIS_HASH : chain[index - 1].hash;
      expect(entry.hash).toBe(auditEntryHash({ ...entry, prevHash }));
    }
    const listed = (await events.listForAccount(accountId, 10)).entries.reverse();
    expect(listed.map((entry) => [entry.prevHash, entry.hash])).toEqual(
      chain.map((entry, index) => [index === 0 ? GENESIS_HASH : chain[index - 1].hash, entry.hash]),
    );
    expect(chain[0].occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(await breaksOf(accountId)).toEqual([]);
  });

  it('ignores a seq or hash the writer tries to set', async () => {
    const accountId = await newAccount();
    await dataSource.query(
      `INSERT INTO audit_events (account_id, type, seq, occurred_at, hash)
       VALUES ($1, 'login.succeeded', 42, now() - interval '1 year', '\\x00')`,
      [accountId],
    );
    const [entry] = await chainOf(accountId);
    expect(entry).toMatchObject({ seq: '1' });
    expect(await breaksOf(accountId)).toEqual([]);
  });

  it('keeps one unbroken chain when one account records many events at once', async () => {
    const accountId = await newAccount();
    const other = await newAccount();
    await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        events.record({ accountId: index % 4 === 0 ? other : accountId, type: 'login.failed' }),
      ),
    );
    const chain = await chainOf(accountId);
    expect(chain.map((entry) => Number(entry.seq))).toEqual(
      Array.from({ length: 45 }, (_, index) => index + 1),
    );
    expect(await breaksOf(accountId)).toEqual([]);
    expect(await breaksOf(other)).toEqual([]);
  });

  it('refuses an update, a delete or a truncate by the application', async () => {
    const accountId = await newAccount();
    await events.record({ accountId, type: 'login.succeeded' });
    await expect(
      dataSource.query(`UPDATE audit_events SET type = 'login.failed' WHERE account_id = $1`, [
        accountId,
      ]),
    ).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(
      dataSource.query(`DELETE FROM audit_events WHERE account_id = $1`, [accountId]),
    ).rejects.toThrow(/append-only: DELETE refused/);
    await expect(dataSource.query(`TRUNCATE audit_events`)).rejects.toThrow(
      /append-only: TRUNCATE refused/,
    );
    expect(await chainOf(accountId)).toHaveLength(1);
  });

  it('records every signing with a managed key in the statement that stores it', async () => {
    const accountId = await newAccount();
    const operations = new OperationRepository(dataSource);
    const queued = async (network: 'base' | 'solana') => {
      const operation = newOperationEntity(accountId, { kind: 'token.mint' } as AssetIntent, {
        network,
        chainKey: network === 'solana' ? 'solana:audit' : 'evm:31337:audit',
        signer: `signer-${network}`,
      });
      await operations.insert(scopeOf(dataSource.manager), operation);
      return operation;
    };
    const evm = await queued('base');
    const solana = await queued('solana');
    await dataSource.transaction((manager) =>
      operations.markSignedMany(
        scopeOf(manager),
        [{ id: evm.id, nonce: 4n, signedTx: evmWire('signed'), txHash: '0xfirst' }],
        { gasPrice: '1' },
      ),
    );
    await operations.replaceSigned(evm.id, '0xfirst', {
      signedTx: evmWire('bumped'),
      txHash: '0xbumped-hash',
      fees: { gasPrice: '2' },
    });
    await new SolanaOperationRepository(dataSource).markSigned(solana.id, {
      signedTx: solanaWire('wire'),
      txHash: 'solana-signature',
      lastValidBlockHeight: 10n,
    });

    const page = await events.listForAccount(accountId, 10);
    expect(page.entries.map((entry) => [entry.type, entry.details])).toEqual([
      [
        'managed_key.used',
        {
          operation_id: solana.id,
          kind: 'token.mint',
          network: 'solana',
          signer: 'signer-solana',
          tx: 'solana-signature',
        },
      ],
      [
        'managed_key.used',
        expect.objectContaining({ operation_id: evm.id, tx: '0xbumped-hash', nonce: '4' }),
      ],
      [
        'managed_key.used',
        expect.objectContaining({ operation_id: evm.id, tx: '0xfirst', nonce: '4' }),
      ],
    ]);
    const logged = JSON.stringify(page.entries);
    for (const wire of [evmWire('signed'), evmWire('bumped'), solanaWire('wire')]) {
      expect(logged).not.toContain(wire);
    }
    expect(await breaksOf(accountId)).toEqual([]);
  });

  it('pages an account newest first, and only its own entries', async () => {
    const accountId = await newAccount();
    const other = await newAccount();
    for (let index = 0; index < 12; index++) {
      await events.record({ accountId, type: 'login.succeeded', details: { n: index } });
    }
    await events.record({ accountId: other, type: 'login.failed' });
    const pages: string[][] = [];
    const listed: AuditEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await events.listForAccount(accountId, 5, cursor);
      pages.push(page.entries.map((entry) => entry.seq));
      listed.push(...page.entries);
      cursor = page.nextBeforeSeq ?? undefined;
    } while (cursor);
    // Each entry links to the one before it, across pages too.
    listed.slice(1).forEach((older, index) => expect(listed[index].prevHash).toBe(older.hash));
    // By number, not as text (where 10 sorts before 2).
    expect(pages).toEqual([
      ['12', '11', '10', '9', '8'],
      ['7', '6', '5', '4', '3'],
      ['2', '1'],
    ]);
  });

  it('names the entry a superuser edited, and audit:verify exits 1 naming it', async () => {
    const accountId = await newAccount();
    for (const type of ['account.created', 'login.succeeded', 'api_key.issued'] as const) {
      await events.record({ accountId, type });
    }
    const [, second] = await chainOf(accountId);
    const clean = await runAuditVerify(services.databaseUrl);
    expect(clean.output).not.toContain(accountId);

    await tamper(`UPDATE audit_events SET type = 'login.failed' WHERE id = $1`, [second.id]);

    expect(await breaksOf(accountId)).toEqual([
      { accountId, id: second.id, seq: '2', problem: expect.stringMatching(/changed/) },
    ]);
    const verified = await runAuditVerify(services.databaseUrl);
    expect(verified.code).toBe(1);
    expect(verified.output).toContain(`account ${accountId}: entry seq 2 (id ${second.id})`);
  });

  it('names the entry after one edited and re-hashed, and the gap of a deleted one', async () => {
    const rehashed = await newAccount();
    const deleted = await newAccount();
    for (const accountId of [rehashed, deleted]) {
      for (let index = 0; index < 4; index++) {
        await events.record({ accountId, type: 'login.succeeded' });
      }
    }
    const [first, second, third] = await chainOf(rehashed);
    const forged = { ...second, details: '{"forged": true}', prevHash: first.hash };
    await tamper(
      `UPDATE audit_events SET details = $2::jsonb, hash = decode($3, 'hex') WHERE id = $1`,
      [second.id, forged.details, auditEntryHash(forged)],
    );
    const [, gone, after] = await chainOf(deleted);
    await tamper(`DELETE FROM audit_events WHERE id = $1`, [gone.id]);

    expect(await breaksOf(rehashed)).toEqual([
      { accountId: rehashed, id: third.id, seq: '3', problem: expect.stringMatching(/re-hashed/) },
    ]);
    expect(await breaksOf(deleted)).toEqual([
      { accountId: deleted, id: after.id, seq: '3', problem: expect.stringMatching(/missing/) },
    ]);
  });

  it('lets the audit trail of an account be written while one of its keys is issued (no deadlock)', async () => {
    // Found by the fuzz suite: issuing a key locks the account's row (the key cap) and then
    // appends to its trail; a sign-in failing at that moment holds the trail's lock and its
    // foreign key check reads the same row. The cap's lock must not block that read.
    const accountId = await newAccount();
    const failedLogin = new Client({ connectionString: services.databaseUrl });
    await failedLogin.connect();
    try {
      await failedLogin.query('BEGIN');
      // The trail's lock, as audit_events_link takes it first (before the foreign key check).
      await failedLogin.query('SELECT pg_advisory_xact_lock(1635083369, hashtext($1::text))', [
        accountId,
      ]);
      // The key issue takes the account's row, then waits for the trail's lock.
      const keys = new ApiKeyRepository(dataSource);
      const issuing = dataSource.transaction(async (manager) => {
        const key = {
          id: randomUUID(),
          accountId,
          name: 'k',
          keyHash: randomUUID(),
          keyPrefix: 'ais_test',
          createdAt: new Date(),
          revokedAt: null,
        };
        expect(await keys.insertWithinCap(key, 10, scopeOf(manager))).toBe(true);
        await manager.query(
          `INSERT INTO audit_events (account_id, type) VALUES ($1, 'api_key.issued')`,
          [accountId],
        );
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The failing sign-in appends once more (its foreign key check reads the account's row).
      await failedLogin.query(
        `INSERT INTO audit_events (account_id, type) VALUES ($1, 'login.failed')`,
        [accountId],
      );
      await failedLogin.query('COMMIT');
      await issuing;
    } finally {
      await failedLogin.end();
    }
    expect((await chainOf(accountId)).map((entry) => entry.type)).toEqual([
      'login.failed',
      'api_key.issued',
    ]);
  });
});
