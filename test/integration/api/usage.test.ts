import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import { createDataSource, OperationRepository, type OperationEntity } from '@app/database';
import type { AssetIntent } from '@app/common';
import { scopeOf } from '@test/support/work-scope';
import { registerSession } from '@test/support/accounts';
import { startApiInProcess } from '@test/support/api-app';
import type { HttpClient } from '@test/support/http-client';
import { newOperationEntity } from '@test/support/operation-factory';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const HOUR_MS = 3_600_000;
const mint = { kind: 'token.mint', asset: '0xasset', amount: '1', recipient: '0xr' } as AssetIntent;

/** GET /account/usage: the account's operations per hour by status, and confirmation latency. */
describe('GET /account/usage', () => {
  let services: TestServices;
  let app: NestFastifyApplication;
  let http: HttpClient;
  let dataSource: DataSource;
  let operations: OperationRepository;

  beforeAll(async () => {
    services = await startTestServices();
    ({ app, http } = await startApiInProcess(services));
    dataSource = await createDataSource(services.databaseUrl).initialize();
    operations = new OperationRepository(dataSource);
  });

  afterAll(async () => {
    await app?.close();
    await dataSource?.destroy();
    await services?.stop();
  });

  async function accountWithKey(label: string): Promise<{ accountId: string; api: HttpClient }> {
    const { session, email } = await registerSession(http.baseUrl, label);
    const key = (await session.post('/account/api-keys', { name: label })).body.data.key;
    const [row] = await dataSource.query(`SELECT id FROM accounts WHERE email = $1`, [email]);
    return { accountId: row.id, api: http.with({ 'api-key': key }) };
  }

  /** An operation accepted `hoursAgo` hours ago, settled `latencyMs` later when confirmed. */
  async function operationAt(
    accountId: string,
    hoursAgo: number,
    status: OperationEntity['status'],
    overrides: Partial<OperationEntity> = {},
    latencyMs = 1_000,
  ): Promise<void> {
    const createdAt = new Date(Date.now() - hoursAgo * HOUR_MS);
    const settled = status === 'confirmed' || status === 'failed';
    await operations.insert(
      scopeOf(dataSource.manager),
      newOperationEntity(accountId, mint, {
        status,
        createdAt,
        settledAt: settled ? new Date(createdAt.getTime() + latencyMs) : null,
        ...overrides,
      }),
    );
  }

  it('counts each hour of the day by status, zero-filled, with latency percentiles', async () => {
    const { accountId, api } = await accountWithKey('usage');
    const other = await accountWithKey('usage-other');
    await operationAt(accountId, 0, 'confirmed', {}, 1_000);
    await operationAt(accountId, 0, 'confirmed', {}, 3_000);
    await operationAt(accountId, 0, 'queued');
    await operationAt(accountId, 2, 'failed');
    await operationAt(accountId, 2, 'confirmed', { network: 'solana' }, 2_000);
    await operationAt(accountId, 30, 'confirmed', {}, 50_000); // a day ago: only in the week
    await operationAt(other.accountId, 0, 'confirmed');

    const day = await api.get('/account/usage');
    expect(day.status).toBe(200);
    const usage = day.body.data;
    expect(usage.window).toBe('day');
    expect(usage.hours).toHaveLength(24);
    const latest = usage.hours[23];
    expect(new Date(latest.hour).getTime()).toBe(Math.floor(Date.now() / HOUR_MS) * HOUR_MS);
    expect(latest).toMatchObject({ confirmed: 2, failed: 0, pending: 1 });
    expect(usage.hours[21]).toMatchObject({ confirmed: 1, failed: 1, pending: 0 });
    expect(usage.totals).toEqual({ confirmed: 3, failed: 1, pending: 1 });
    expect(usage.confirmation_latency_ms).toEqual({ count: 3, p50: 2_000, p90: 2_800, p99: 2_980 });

    const week = (await api.get('/account/usage?window=week')).body.data;
    expect(week.hours).toHaveLength(168);
    expect(week.totals).toEqual({ confirmed: 4, failed: 1, pending: 1 });

    const solana = (await api.get('/account/usage?network=solana')).body.data;
    expect(solana.totals).toEqual({ confirmed: 1, failed: 0, pending: 0 });
    expect(solana.confirmation_latency_ms.p50).toBe(2_000);
  });

  it('counts the operations pending now whatever their age, by network, apart from the window', async () => {
    const { accountId, api } = await accountWithKey('usage-pending');
    const other = await accountWithKey('usage-pending-other');
    await operationAt(accountId, 0, 'queued');
    await operationAt(accountId, 1, 'confirmed');
    await operationAt(accountId, 3, 'failed');
    await operationAt(accountId, 30, 'signed', { nonce: 7n }); // a day ago: only in the week
    await operationAt(accountId, 400, 'submitted', { network: 'solana' }); // older than a week
    await operationAt(accountId, 400, 'confirmed', { network: 'solana' });
    await operationAt(other.accountId, 0, 'queued');
    await operationAt(other.accountId, 0, 'submitted', { network: 'solana' });

    const day = (await api.get('/account/usage')).body.data;
    expect(day.totals).toEqual({ confirmed: 1, failed: 1, pending: 1 });
    expect(day.pending_now).toEqual({ total: 3, by_network: { base: 2, solana: 1 } });
    const week = (await api.get('/account/usage?window=week')).body.data;
    expect(week.totals.pending).toBe(2);
    expect(week.pending_now).toEqual(day.pending_now);

    const solana = (await api.get('/account/usage?network=solana')).body.data;
    expect(solana.pending_now).toEqual({ total: 1, by_network: { solana: 1 } });
    // `evm` is the default EVM network of the configuration (base).
    const evm = (await api.get('/account/usage?network=evm')).body.data;
    expect(evm.pending_now).toEqual({ total: 2, by_network: { base: 2 } });
    const polygon = (await api.get('/account/usage?network=polygon')).body.data;
    expect(polygon.pending_now).toEqual({ total: 0, by_network: {} });

    // Settling moves an operation out of the count at once, whatever window is shown.
    await dataSource.query(
      `UPDATE operations SET status = 'confirmed', settled_at = now()
       WHERE account_id = $1 AND network = 'solana' AND status = 'submitted'`,
      [accountId],
    );
    const settled = (await api.get('/account/usage?window=week')).body.data;
    expect(settled.pending_now).toEqual({ total: 2, by_network: { base: 2 } });
  });

  it('answers an empty account with zeros, and bad parameters with 400', async () => {
    const { api } = await accountWithKey('usage-empty');
    const empty = (await api.get('/account/usage')).body.data;
    expect(empty.totals).toEqual({ confirmed: 0, failed: 0, pending: 0 });
    expect(empty.confirmation_latency_ms).toEqual({ count: 0, p50: null, p90: null, p99: null });
    expect(empty.pending_now).toEqual({ total: 0, by_network: {} });

    const bad = await api.get('/account/usage?window=month');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('window must be one of: day, week');
    expect((await api.get('/account/usage?network=mars')).status).toBe(400);
    expect((await http.get('/account/usage')).status).toBe(401);
  });
});
