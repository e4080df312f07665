import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import type { AssetIntent } from '@app/common';
import {
  createDataSource,
  OperationRepository,
  SettlementRepository,
  SolanaOperationRepository,
  type OperationEntity,
} from '@app/database';
import { scopeOf } from '@test/support/work-scope';
import { registerSession } from '@test/support/accounts';
import { startApiInProcess } from '@test/support/api-app';
import type { HttpClient } from '@test/support/http-client';
import { newOperationEntity } from '@test/support/operation-factory';
import { solanaWire } from '@test/support/wire-fixtures';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const mint: AssetIntent = { kind: 'token.mint', asset: '0xasset', amount: '5', recipient: '0xr' };

/**
 * The console's operations: the list narrowed by status, network and kind, and one operation's
 * detail with its request, every transaction version it signed and its events.
 */
describe('account operations: filters and detail', () => {
  let services: TestServices;
  let app: NestFastifyApplication;
  let http: HttpClient;
  let dataSource: DataSource;
  let operations: OperationRepository;
  let settlements: SettlementRepository;

  beforeAll(async () => {
    services = await startTestServices();
    ({ app, http } = await startApiInProcess(services));
    dataSource = await createDataSource(services.databaseUrl).initialize();
    operations = new OperationRepository(dataSource);
    settlements = new SettlementRepository(dataSource);
  });

  afterAll(async () => {
    await app?.close();
    await dataSource?.destroy();
    await services?.stop();
  });

  async function account(label: string) {
    const { session, email } = await registerSession(http.baseUrl, label);
    const key = (await session.post('/account/api-keys', { name: label })).body.data.key;
    const [row] = await dataSource.query(`SELECT id FROM accounts WHERE email = $1`, [email]);
    return { accountId: row.id as string, session, api: http.with({ 'api-key': key }) };
  }

  async function insert(accountId: string, overrides: Partial<OperationEntity> = {}) {
    const operation = newOperationEntity(accountId, overrides.intent ?? mint, overrides);
    await operations.insert(scopeOf(dataSource.manager), operation);
    return operation;
  }

  it('lists only the operations of the status, network and kind asked for', async () => {
    const { accountId, session } = await account('filters');
    const confirmedBase = await insert(accountId, { status: 'confirmed' });
    const failedSolana = await insert(accountId, { status: 'failed', network: 'solana' });
    const queuedBurn = await insert(accountId, {
      intent: { kind: 'token.burn', asset: '0xasset', amount: '1' },
    });
    const ids = async (query: string) =>
      (await session.get(`/account/operations?${query}`)).body.data.operations.map(
        (operation: { operation_id: string }) => operation.operation_id,
      );

    expect(await ids('status=confirmed')).toEqual([confirmedBase.id]);
    expect(await ids('network=solana')).toEqual([failedSolana.id]);
    expect(await ids('network=evm')).toEqual([queuedBurn.id, confirmedBase.id]);
    expect(await ids('kind=token.burn')).toEqual([queuedBurn.id]);
    expect(await ids('kind=token.mint&status=failed')).toEqual([failedSolana.id]);
    expect(await ids('status=queued&network=solana')).toEqual([]);

    const bad = await session.get('/account/operations?status=done');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('status must be one of: queued, signed, submitted');
    expect((await session.get('/account/operations?kind=token.melt')).status).toBe(400);
  });

  it('shows an operation with its request, every version it signed and its events', async () => {
    const { accountId, session, api } = await account('detail');
    const hook = await api.post('/webhooks', {
      url: 'http://127.0.0.1:9/hooks',
      event_types: ['operation.confirmed'],
    });
    expect(hook.status).toBe(200);
    const operation = await insert(accountId, { details: { amount: '5' } });
    await operations.markSignedMany(
      scopeOf(dataSource.manager),
      [{ id: operation.id, nonce: 3n, signedTx: '0x01', txHash: '0xfirst' }],
      { maxFeePerGas: '10' },
    );
    await operations.markSubmitted(operation.id);
    await operations.replaceSigned(operation.id, '0xfirst', {
      signedTx: '0x02',
      txHash: '0xbumped',
      fees: { maxFeePerGas: '12' },
    });
    await operations.markSubmitted(operation.id);
    await settlements.confirm(operation.id, {}, { kind: 'none' });

    for (const client of [session, api]) {
      const answer = await client.get(`/account/operations/${operation.id}`);
      expect(answer.status).toBe(200);
      const detail = answer.body.data;
      expect(detail.operation).toMatchObject({
        operation_id: operation.id,
        status: 'confirmed',
        tx: '0xbumped',
      });
      expect(detail.request).toEqual({
        intent: { kind: 'token.mint', asset: '0xasset', amount: '5', recipient: '0xr' },
        details: { amount: '5' },
      });
      expect(detail.transactions).toEqual([
        expect.objectContaining({
          tx: '0xfirst',
          nonce: '3',
          landed: false,
          fees: { maxFeePerGas: '10' },
        }),
        expect.objectContaining({
          tx: '0xbumped',
          nonce: '3',
          landed: true,
          fees: { maxFeePerGas: '12' },
        }),
      ]);
      expect(detail.events.map((event: { type: string }) => event.type)).toEqual([
        'operation.queued',
        'operation.submitted',
        'operation.submitted',
        'operation.confirmed',
      ]);
      expect(detail.events[2].data.tx).toBe('0xbumped');
      // Its webhook deliveries: the endpoint takes confirmed events only; no worker runs here.
      expect(detail.deliveries).toEqual([
        expect.objectContaining({
          endpoint_id: hook.body.data.id,
          event_id: detail.events[3].id,
          event_type: 'operation.confirmed',
          status: 'pending',
          attempt_log: [],
        }),
      ]);
      expect(detail.settled_at).toEqual(expect.any(String));
    }

    const stranger = await account('detail-other');
    expect((await stranger.session.get(`/account/operations/${operation.id}`)).status).toBe(404);
    expect((await session.get('/account/operations/not-a-uuid')).status).toBe(404);
    expect((await http.get(`/account/operations/${operation.id}`)).status).toBe(401);
  });

  it('tells when an operation last changed, its latest signing included', async () => {
    const { accountId, api } = await account('detail-signed');
    const operation = await insert(accountId, {
      network: 'solana',
      chainKey: 'solana:detail',
      status: 'queued',
    });
    await dataSource.query(
      `UPDATE operations SET updated_at = now() - interval '1 hour' WHERE id = $1`,
      [operation.id],
    );
    expect(
      await new SolanaOperationRepository(dataSource).markSigned(operation.id, {
        signedTx: solanaWire('sig-detail'),
        txHash: 'sig-detail',
        lastValidBlockHeight: 100n,
      }),
    ).toBe(true);

    const detail = (await api.get(`/account/operations/${operation.id}`)).body.data;
    expect(detail.operation.status).toBe('signed');
    expect(detail.transactions).toEqual([expect.objectContaining({ tx: 'sig-detail' })]);
    expect(detail.updated_at).toBe(detail.transactions[0].signed_at);
  });
});
