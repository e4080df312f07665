import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  ACCOUNT_EVENTS_CHANNEL,
  AccountEventRepository,
  createDataSource,
  OperationRepository,
  PgNotifications,
  SettlementRepository,
  SolanaOperationRepository,
} from '@app/database';
import type { AppConfig } from '@app/config';
import { accountEventView, operationView } from '@app/domain';
import { scopeOf } from '@test/support/work-scope';
import { newOperationEntity } from '@test/support/operation-factory';
import { solanaWire } from '@test/support/wire-fixtures';
import { insertAccountRow } from '@test/support/account-rows';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(120_000);

/**
 * The outbox: an operation's status changes and an account's key changes are events numbered per
 * account by the database, in the transaction that makes the change, and notified.
 */
describe('account events', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let events: AccountEventRepository;
  let operations: OperationRepository;
  let settlements: SettlementRepository;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    events = new AccountEventRepository(dataSource);
    operations = new OperationRepository(dataSource);
    settlements = new SettlementRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  const newAccount = () => insertAccountRow(dataSource, 'events');

  const mint = {
    kind: 'token.mint',
    asset: '0xasset',
    amount: '5',
    recipient: '0xrecipient',
  } as const;

  it('writes an event per status change, numbered 1, 2, 3 with the operation as it was then', async () => {
    const accountId = await newAccount();
    const operation = newOperationEntity(accountId, mint);
    await operations.insert(scopeOf(dataSource.manager), operation);
    await operations.markSignedMany(
      scopeOf(dataSource.manager),
      [{ id: operation.id, nonce: 7n, signedTx: '0x01', txHash: '0xhash' }],
      {},
    );
    await operations.markSubmitted(operation.id);
    await operations.fail(operation.id, { code: 'BAD_GATEWAY', message: 'reverted' });

    const stored = await events.listAfter(accountId, 0n, 10);
    expect(stored.map((event) => [event.seq, event.type])).toEqual([
      ['1', 'operation.queued'],
      ['2', 'operation.submitted'],
      ['3', 'operation.failed'],
    ]);
    const views = stored.map((event) => accountEventView(event, events));
    expect(views[0].data).toMatchObject({
      operation_id: operation.id,
      status: 'queued',
      tx: null,
    });
    expect(views[1].data).toMatchObject({ status: 'submitted', tx: '0xhash' });
    expect(views[2].data).toMatchObject({ status: 'failed', error: { message: 'reverted' } });
    expect(JSON.stringify(stored)).not.toContain('ephemeral');
    expect(await events.listAfter(accountId, 2n, 10)).toHaveLength(1);
  });

  it("stores what changes and shows each event as the operation's view was then", async () => {
    const accountId = await newAccount();
    const operation = newOperationEntity(accountId, mint);
    const viewNow = async () => operationView((await operations.findById(operation.id))!);
    const seen: Record<string, unknown>[] = [];
    await operations.insert(scopeOf(dataSource.manager), operation);
    seen.push(await viewNow());
    await operations.recordRetry(operation.id, 'the RPC timed out', 60_000);
    await operations.markSignedMany(
      scopeOf(dataSource.manager),
      [{ id: operation.id, nonce: 3n, signedTx: '0x02', txHash: '0xsent' }],
      {},
    );
    await operations.markSubmitted(operation.id);
    seen.push(await viewNow());
    await operations.fail(operation.id, { code: 'BAD_GATEWAY', message: 'reverted' });
    seen.push(await viewNow());

    const rendered = (await events.listForOperation(accountId, operation.id)).map(
      (event) => accountEventView(event, events).data,
    );
    expect(rendered).toEqual(seen);
    expect(seen[1]).toMatchObject({ tx: '0xsent', retries: { attempts: 1 } });
    const stored: { data: Record<string, unknown> }[] = await dataSource.query(
      `SELECT data FROM account_events WHERE operation_id = $1 ORDER BY seq`,
      [operation.id],
    );
    for (const { data } of stored) {
      for (const fixed of ['intent', 'details', 'kind', 'network', 'signer', 'chain_key']) {
        expect(data).not.toHaveProperty(fixed);
      }
      // What is null is not stored (migration 1767100000000): the reader shows it as null.
      expect(Object.values(data)).not.toContain(null);
    }
    // The status is the event's type, a zero count of attempts the default, and a settled
    // event's fields the operation's final row (migration 1767800000000).
    expect(stored.map((event) => event.data)).toEqual([
      {},
      {
        tx_hash: '0xsent',
        attempts: 1,
        last_error: 'the RPC timed out',
        retrying_since: expect.any(String),
      },
      {},
    ]);
  });

  it('shows a confirmed event with the result and landed transaction of its final row', async () => {
    const accountId = await newAccount();
    const operation = newOperationEntity(accountId, mint);
    await operations.insert(scopeOf(dataSource.manager), operation);
    await operations.markSignedMany(
      scopeOf(dataSource.manager),
      [{ id: operation.id, nonce: 4n, signedTx: '0x03', txHash: '0xfirst' }],
      {},
    );
    await operations.markSubmitted(operation.id);
    const submittedView = operationView((await operations.findById(operation.id))!);
    await operations.replaceSigned(operation.id, '0xfirst', {
      signedTx: '0x04',
      txHash: '0xbumped',
      fees: {},
    });
    await settlements.confirm(operation.id, { tokenId: '5' }, { kind: 'none' }, '0xbumped');
    const confirmedView = operationView((await operations.findById(operation.id))!);

    const [, submitted, confirmed] = await events.listForOperation(accountId, operation.id);
    expect(accountEventView(submitted, events).data).toEqual(submittedView);
    expect(accountEventView(confirmed, events).data).toEqual(confirmedView);
    expect(confirmedView).toMatchObject({ status: 'confirmed', tx: '0xbumped' });
    const [{ data }]: { data: Record<string, unknown> }[] = await dataSource.query(
      `SELECT data FROM account_events WHERE operation_id = $1 AND type = 'operation.confirmed'`,
      [operation.id],
    );
    expect(data).toEqual({});
  });

  it("shows a Solana new mint's address in its submitted event, from its row", async () => {
    const accountId = await newAccount();
    const operation = newOperationEntity(
      accountId,
      { kind: 'nft.create', name: 'Minted', symbol: 'MNT', uri: 'https://m.example/1' } as never,
      { network: 'solana', chainKey: 'solana:events', signer: 'payer' },
    );
    const viewNow = async () => operationView((await operations.findById(operation.id))!);
    const seen: Record<string, unknown>[] = [];
    await operations.insert(scopeOf(dataSource.manager), operation);
    seen.push(await viewNow());
    await new SolanaOperationRepository(dataSource).markSigned(operation.id, {
      signedTx: solanaWire('sig-new-mint'),
      txHash: 'sig-new-mint',
      lastValidBlockHeight: 100n,
      newMintAddress: 'NewMint1111111111111111111111111111111111111',
      newMintSecret: { ciphertext: Buffer.from('sealed'), keyId: 'key-1' },
    });
    await operations.markSubmitted(operation.id);
    seen.push(await viewNow());

    const rendered = (await events.listForOperation(accountId, operation.id)).map(
      (event) => accountEventView(event, events).data,
    );
    expect(rendered).toEqual(seen);
    expect(JSON.stringify(seen[1])).toContain('NewMint1111111111111111111111111111111111111');
    expect(JSON.stringify(seen[0])).not.toContain('NewMint');
    // The address never changes once signed (only the first signing sets it), so the submitted
    // event stores only its transaction (migration 1768200000000).
    const stored: { data: Record<string, unknown> }[] = await dataSource.query(
      `SELECT data FROM account_events WHERE operation_id = $1 ORDER BY seq`,
      [operation.id],
    );
    expect(stored.map((event) => event.data)).toEqual([{}, { tx_hash: 'sig-new-mint' }]);
  });

  it('shows an event stored with its null fields (before 1767100000000) as it was', async () => {
    const accountId = await newAccount();
    const operation = newOperationEntity(accountId, mint);
    await operations.insert(scopeOf(dataSource.manager), operation);
    const queuedView = operationView((await operations.findById(operation.id))!);
    // As migration 1767000000000 stored it: every field that changes, nulls included.
    await dataSource.query(
      `UPDATE account_events e
       SET data = jsonb_build_object('status', o.status, 'tx_hash', o.tx_hash,
         'result', o.result, 'new_mint_address', o.new_mint_address,
         'error_code', o.error_code, 'error_message', o.error_message,
         'attempts', o.attempts, 'last_error', o.last_error,
         'retrying_since', o.retrying_since)
       FROM operations o WHERE o.id = e.operation_id AND e.operation_id = $1`,
      [operation.id],
    );
    const [event] = await events.listForOperation(accountId, operation.id);
    expect(Object.values(event.data)).toContain(null);
    expect(accountEventView(event, events).data).toEqual(queuedView);
  });

  it('shows an event stored with the whole row (before lean events) as it was', async () => {
    const accountId = await newAccount();
    const operation = newOperationEntity(accountId, mint);
    await operations.insert(scopeOf(dataSource.manager), operation);
    const queuedView = operationView((await operations.findById(operation.id))!);
    // As migration 1766500000000 stored it: the whole row, here with a recipient since changed.
    await dataSource.query(
      `UPDATE account_events e
       SET data = to_jsonb(o) - 'new_mint_secret' - 'new_mint_key_id'
         || jsonb_build_object('intent', o.intent || '{"recipient": "0xthen"}')
       FROM operations o WHERE o.id = e.operation_id AND e.operation_id = $1`,
      [operation.id],
    );
    const [event] = await events.listForOperation(accountId, operation.id);
    expect(accountEventView(event, events).data).toEqual({ ...queuedView, recipient: '0xthen' });
  });

  it("leaves a new mint's sealed secret out of every operation snapshot", async () => {
    const accountId = await newAccount();
    const operation = newOperationEntity(accountId, mint);
    operation.newMintSecret = Buffer.from('sealed-new-mint-seed');
    operation.newMintKeyId = 'key-1';
    await operations.insert(scopeOf(dataSource.manager), operation);
    await operations.fail(operation.id, { code: 'BAD_GATEWAY', message: 'reverted' });
    const stored = JSON.stringify(await events.listAfter(accountId, 0n, 10));
    expect(stored).toContain('operation.failed');
    const sealed = Buffer.from('sealed-new-mint-seed').toString('hex');
    for (const leak of ['new_mint_secret', 'new_mint_key_id', 'key-1', sealed]) {
      expect(stored).not.toContain(leak);
    }
  });

  it('numbers concurrent writers of one account with no gap and no repeat', async () => {
    const accountId = await newAccount();
    await Promise.all(
      Array.from({ length: 40 }, () =>
        operations.insert(scopeOf(dataSource.manager), newOperationEntity(accountId, mint)),
      ),
    );
    const stored = await events.listAfter(accountId, 0n, 100);
    expect(stored.map((event) => Number(event.seq))).toEqual(
      Array.from({ length: 40 }, (_, index) => index + 1),
    );
  });

  it("numbers a many-row statement's events as one run after each account's last, among concurrent writers", async () => {
    const accountId = await newAccount();
    const otherId = await newAccount();
    const mine = Array.from({ length: 60 }, () => newOperationEntity(accountId, mint));
    const others = Array.from({ length: 5 }, () => newOperationEntity(otherId, mint));
    for (const operation of [...mine, ...others]) {
      await operations.insert(scopeOf(dataSource.manager), operation);
    }
    // One statement fails all 65 (two accounts) while 20 single writers add events to the first.
    const ids = [...mine, ...others].map((operation) => operation.id);
    await Promise.all([
      dataSource.query(
        `UPDATE operations SET status = 'failed', error_code = 'BAD_GATEWAY',
           error_message = 'reverted', settled_at = now()
         WHERE id = ANY($1::uuid[])`,
        [ids],
      ),
      ...Array.from({ length: 20 }, () =>
        operations.insert(scopeOf(dataSource.manager), newOperationEntity(accountId, mint)),
      ),
    ]);

    const stored = await events.listAfter(accountId, 0n, 500);
    expect(stored.map((event) => Number(event.seq))).toEqual(
      Array.from({ length: 140 }, (_, index) => index + 1),
    );
    const failed = stored.filter((event) => event.type === 'operation.failed');
    expect(new Set(failed.map((event) => event.operationId))).toEqual(
      new Set(mine.map((operation) => operation.id)),
    );
    const failedSeqs = failed.map((event) => Number(event.seq));
    expect(failedSeqs[failedSeqs.length - 1] - failedSeqs[0]).toBe(failed.length - 1);
    expect(failed[0].data).toMatchObject({ status: 'failed', error_message: 'reverted' });
    expect(failed[0].data).not.toHaveProperty('ord');

    const theirs = await events.listAfter(otherId, 0n, 100);
    expect(theirs.map((event) => [Number(event.seq), event.type])).toEqual([
      ...others.map((_, index) => [index + 1, 'operation.queued']),
      ...others.map((_, index) => [others.length + index + 1, 'operation.failed']),
    ]);
  });

  it('tells only changes of status: an update that leaves it makes no event', async () => {
    const accountId = await newAccount();
    const operation = newOperationEntity(accountId, mint);
    await operations.insert(scopeOf(dataSource.manager), operation);
    await dataSource.query(`UPDATE operations SET attempts = attempts + 1 WHERE id = $1`, [
      operation.id,
    ]);
    await dataSource.query(`UPDATE operations SET status = 'queued' WHERE id = $1`, [operation.id]);
    const stored = await events.listAfter(accountId, 0n, 10);
    expect(stored.map((event) => event.type)).toEqual(['operation.queued']);
  });

  it('records API keys created and revoked', async () => {
    const accountId = await newAccount();
    const keyId = randomUUID();
    await dataSource.query(
      `INSERT INTO api_keys (id, account_id, name, key_prefix, key_hash) VALUES ($1, $2, 'ci', 'ais_abc', $3)`,
      [keyId, accountId, randomUUID()],
    );
    await dataSource.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [keyId]);
    await dataSource.query(`UPDATE api_keys SET name = 'renamed' WHERE id = $1`, [keyId]);
    const stored = await events.listAfter(accountId, 0n, 10);
    expect(stored.map((event) => event.type)).toEqual(['api_key.created', 'api_key.revoked']);
    expect(stored[1].data).toMatchObject({ id: keyId, name: 'ci', prefix: 'ais_abc' });
    expect(JSON.stringify(stored)).not.toContain('key_hash');
  });

  it('notifies listeners with the account id once the change commits', async () => {
    const notifications = new PgNotifications({
      databaseUrl: services.databaseUrl,
      databaseConnectTimeoutMs: 5_000,
    } as AppConfig);
    try {
      const accountId = await newAccount();
      const heard: (string | null)[] = [];
      await notifications.listen(ACCOUNT_EVENTS_CHANNEL, (payload) => heard.push(payload));
      await dataSource.transaction(async (manager) => {
        await operations.insert(scopeOf(manager), newOperationEntity(accountId, mint));
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(heard).toEqual([]);
      });
      await waitFor(() => heard.length > 0);
      expect(heard).toEqual([accountId]);
    } finally {
      await notifications.onApplicationShutdown();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
