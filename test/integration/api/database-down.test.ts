import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startApiInProcess } from '@test/support/api-app';
import { queryDatabase } from '@test/support/chain-reads';
import { expectError } from '@test/support/envelope-assertions';
import { HttpClient, type HttpResponse } from '@test/support/http-client';
import { startTcpProxy, type TcpProxy } from '@app/localnet';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(90_000);

const CONNECT_TIMEOUT_MS = 1_000;

/**
 * When Postgres cannot be reached, every route (api-key, session and public, reads and writes)
 * answers 503 with Retry-After within seconds, and nothing is written; once it is back, writes
 * work again. The API reaches Postgres through a TCP proxy the test cuts.
 */
describe('an unreachable Postgres', () => {
  let services: TestServices;
  let proxy: TcpProxy;
  let app: NestFastifyApplication;
  let session: HttpClient;
  let api: HttpClient;
  let operationId: string;
  let metadataPath: string;

  beforeAll(async () => {
    services = await startTestServices();
    proxy = await startTcpProxy(services.databaseUrl);
    let http: HttpClient;
    ({ app, http } = await startApiInProcess(services, {
      DATABASE_URL: proxy.url,
      DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      QUEUE_PREFIX: `database-down-${Date.now()}`,
    }));
    session = new HttpClient(http.baseUrl);
    await session.post('/account/register', {
      email: `database-down-${Date.now()}@example.com`,
      password: 'correct horse battery staple',
    });
    const key = (await session.post('/account/api-keys', {})).body.data.key;
    api = session.with({ 'api-key': key });
    const written = await createToken();
    expect(written.status).toBe(202);
    operationId = written.body.data.operation_id;
    metadataPath = new URL(written.body.data.metadata_uri).pathname;
  });

  afterAll(async () => {
    proxy?.restore();
    await app?.close();
    await proxy?.close();
    await services?.stop();
  });

  // Prefer: respond-async: the write needs no chain and no worker to be answered.
  function createToken(): Promise<HttpResponse> {
    return api.post(
      '/tokens',
      { network: 'base', name: 'Outage', symbol: 'OUT', amount: 1 },
      { prefer: 'respond-async' },
    );
  }

  async function operationCount(): Promise<number> {
    // Straight to Postgres, not through the proxy.
    const [row] = await queryDatabase<{ count: string }>(
      services.databaseUrl,
      'SELECT count(*) FROM operations',
    );
    return Number(row.count);
  }

  /** Every kind of route, each answered 503 with Retry-After within `withinMs`. */
  async function expectEveryRouteUnavailable(withinMs: number): Promise<void> {
    const requests: [string, () => Promise<HttpResponse>][] = [
      ['POST /tokens (api-key write)', createToken],
      ['GET /operations/{id} (api-key read)', () => api.get(`/operations/${operationId}`)],
      [
        'an api-key not seen before (the guard reads Postgres)',
        () => api.get(`/operations/${operationId}`, { 'api-key': `ais_${'x'.repeat(43)}` }),
      ],
      ['GET /account (session read)', () => session.get('/account')],
      ['POST /account/api-keys (session write)', () => session.post('/account/api-keys', {})],
      [
        'POST /account/login (public write)',
        () =>
          new HttpClient(session.baseUrl).post('/account/login', {
            email: 'someone@example.com',
            password: 'correct horse battery staple',
          }),
      ],
      ['GET /metadata/{id} (public read)', () => new HttpClient(session.baseUrl).get(metadataPath)],
    ];
    for (const [name, send] of requests) {
      const started = Date.now();
      const response = await send();
      const elapsed = Date.now() - started;
      expect({ name, status: response.status }).toEqual({ name, status: 503 });
      expectError(response, 503, 'Service unavailable', /^The database is unavailable: nothing/);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect({ name, elapsed: elapsed < withinMs }).toEqual({ name, elapsed: true });
    }
  }

  it('answers 503 with Retry-After on every route while the link is cut', async () => {
    const before = await operationCount();
    proxy.cut();
    try {
      await expectEveryRouteUnavailable(3_000);
    } finally {
      proxy.restore();
    }
    expect(await operationCount()).toBe(before);
  });

  it('answers 503 within the connect timeout when Postgres stops answering at all', async () => {
    const before = await operationCount();
    proxy.stall();
    try {
      await expectEveryRouteUnavailable(CONNECT_TIMEOUT_MS + 3_000);
    } finally {
      proxy.restore();
    }
    expect(await operationCount()).toBe(before);
  });

  /**
   * A standby, or a node Patroni has named primary before its promotion ended, takes reads and
   * refuses writes (25006): HAProxy can route to it for a moment during a failover.
   */
  it('answers a write 503 with Retry-After while Postgres takes reads only', async () => {
    const before = await operationCount();
    await setReadOnly(true);
    try {
      const response = await createToken();
      expectError(response, 503, 'Service unavailable', /^The database is unavailable: nothing/);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await api.get(`/operations/${operationId}`)).status).toBe(200);
    } finally {
      await setReadOnly(false);
    }
    expect(await operationCount()).toBe(before);
  });

  /** New sessions of the database read only (or not), the API's pooled ones ended. */
  async function setReadOnly(readOnly: boolean): Promise<void> {
    const database = new URL(services.databaseUrl).pathname.slice(1);
    const setting = readOnly ? 'SET default_transaction_read_only = on' : 'RESET ALL';
    // This session is read only too once the database is: its transaction is read-write.
    await queryDatabase(
      services.databaseUrl,
      `BEGIN READ WRITE; ALTER DATABASE "${database}" ${setting}; COMMIT`,
    );
    await queryDatabase(
      services.databaseUrl,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      [database],
    );
  }

  it('takes writes again once Postgres is back', async () => {
    const before = await operationCount();
    const written = await createToken();
    expect(written.status).toBe(202);
    expect((await api.get(`/operations/${written.body.data.operation_id}`)).status).toBe(200);
    expect(await operationCount()).toBe(before + 1);
  });
});
