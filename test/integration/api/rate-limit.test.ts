import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startApiInProcess, startApiInstances } from '@test/support/api-app';
import { HttpClient } from '@test/support/http-client';
import { freePort } from '@test/support/service-process';
import { keyPrefixFor, startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const LIMIT = { RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: '60' };

/**
 * Two API instances share one Redis and one database, as a horizontally scaled deployment does:
 * the limit is per API key across both. Counters are keyed by API key id, and every key here is
 * new, so nothing left in Redis by another run or suite can interfere.
 */
describe('rate limits per API key, shared by every API instance', () => {
  let services: TestServices;
  let apps: NestFastifyApplication[] = [];
  let a: HttpClient;
  let b: HttpClient;

  beforeAll(async () => {
    services = await startTestServices();
    let clients: HttpClient[];
    ({ apps, clients } = await startApiInstances(services, 2, LIMIT));
    [a, b] = clients;
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await services?.stop();
  });

  /** A new account (through instance A) and one of its API keys. */
  const newKey = async (): Promise<string> => {
    const session = new HttpClient(a.baseUrl);
    const registered = await session.post('/account/register', {
      email: `rate-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`,
      password: 'correct horse battery staple',
    });
    expect(registered.status).toBe(200);
    const issued = await session.post('/account/api-keys', { name: 'rate limit' });
    expect(issued.status).toBe(200);
    return issued.body.data.key as string;
  };

  const createWallet = (http: HttpClient, key: string) =>
    http.post('/wallets', { network: 'solana' }, { 'api-key': key });

  it('counts requests to both instances against one limit and answers the 6th with 429', async () => {
    const key = await newKey();
    const answers = [];
    for (const http of [a, b, a, b, a]) answers.push(await createWallet(http, key));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((r) => r.headers.get('ratelimit-remaining'))).toEqual([
      '4',
      '3',
      '2',
      '1',
      '0',
    ]);
    expect(answers[0].headers.get('ratelimit-limit')).toBe('5');
    expect(Number(answers[0].headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(Number(answers[0].headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);

    const refused = await createWallet(b, key);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      success: false,
      error: 'Too many requests',
      message: `Rate limit of 5 requests per 60 seconds exceeded; retry in ${retryAfter} s.`,
      timestamp: expect.any(String),
    });
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-request-id')).toBeTruthy();

    // Still refused on the other instance: the count lives in Redis, not in a process.
    expect((await createWallet(a, key)).status).toBe(429);
  });

  it('leaves another key of the same deployment unaffected', async () => {
    const [spent, fresh] = await Promise.all([newKey(), newKey()]);
    for (let i = 0; i < 5; i += 1) await createWallet(i % 2 ? a : b, spent);
    expect((await createWallet(a, spent)).status).toBe(429);

    const other = await createWallet(b, fresh);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('does not limit or count session and public routes', async () => {
    const session = new HttpClient(a.baseUrl);
    await session.post('/account/register', {
      email: `rate-session-${Date.now()}@example.com`,
      password: 'correct horse battery staple',
    });
    for (let i = 0; i < 7; i += 1) {
      const response = await session.get('/account/api-keys');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBeNull();
    }
    const dashboard = await b.get('/dashboard');
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers.get('ratelimit-limit')).toBeNull();
  });

  describe('with a limit large enough to lease (1% of it per grant)', () => {
    const LARGE = { RATE_LIMIT_REQUESTS: '300', RATE_LIMIT_WINDOW_SECONDS: '60' };
    let leasing: NestFastifyApplication[] = [];
    let c: HttpClient;
    let d: HttpClient;

    beforeAll(async () => {
      let clients: HttpClient[];
      ({ apps: leasing, clients } = await startApiInstances(services, 2, LARGE));
      [c, d] = clients;
    });

    afterAll(async () => {
      await Promise.all(leasing.map((app) => app.close()));
    });

    it('never lets more than the limit through two instances, and refuses on both after', async () => {
      const key = await newKey();
      // A read of an operation that is not there: counted like any request, and quick.
      const read = (http: HttpClient) =>
        http.get('/operations/0195f0e4-0000-7000-8000-000000000000', { 'api-key': key });
      const statuses: number[] = [];
      for (let i = 0; i < 320; i += 1) {
        const batch = await Promise.all([read(c), read(d), read(c), read(d)]);
        statuses.push(...batch.map((r) => r.status));
        if (batch.every((r) => r.status === 429)) break;
      }
      const served = statuses.filter((status) => status === 404).length;
      expect(statuses.filter((status) => status !== 404 && status !== 429)).toEqual([]);
      // Leases of 3: at most one per instance left unused when the window's limit is spent.
      expect(served).toBeLessThanOrEqual(300);
      expect(served).toBeGreaterThanOrEqual(300 - 2 * 3);
      for (const http of [c, d]) {
        const refused = await read(http);
        expect(refused.status).toBe(429);
        expect(refused.headers.get('ratelimit-remaining')).toBe('0');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    });
  });

  describe("with an account's write limit large enough to lease", () => {
    const WRITES = { RATE_LIMIT_REQUESTS: '1000', ACCOUNT_WRITE_LIMIT: '300/60' };
    let leasing: NestFastifyApplication[] = [];
    let c: HttpClient;
    let d: HttpClient;
    let redis: Redis;

    beforeAll(async () => {
      let clients: HttpClient[];
      ({ apps: leasing, clients } = await startApiInstances(services, 2, WRITES));
      [c, d] = clients;
      redis = new Redis(services.redisUrl);
    });

    afterAll(async () => {
      redis?.disconnect();
      await Promise.all(leasing.map((app) => app.close()));
    });

    it('counts writes in Redis a lease at a time, and never lets more than the limit through', async () => {
      const session = new HttpClient(c.baseUrl);
      await session.post('/account/register', {
        email: `writes-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`,
        password: 'correct horse battery staple',
      });
      const accountId = (await session.get('/account')).body.data.id as string;
      const keys: string[] = [];
      for (const name of ['one', 'two']) {
        keys.push((await session.post('/account/api-keys', { name })).body.data.key as string);
      }
      const counted = async () =>
        Number(
          await redis.get(
            `${keyPrefixFor(services.databaseUrl)}:rate-limit:account-writes:${accountId}`,
          ),
        );

      // Leases of 3 (1% of 300): the first write counts three in Redis, the next two none.
      for (let i = 0; i < 3; i += 1) {
        expect((await createWallet(c, keys[0])).status).toBe(200);
        expect(await counted()).toBe(3);
      }

      const statuses: number[] = [];
      for (let i = 0; i < 100; i += 1) {
        const batch = await Promise.all([
          createWallet(c, keys[0]),
          createWallet(d, keys[1]),
          createWallet(c, keys[1]),
          createWallet(d, keys[0]),
        ]);
        statuses.push(...batch.map((r) => r.status));
        if (batch.every((r) => r.status === 429)) {
          expect(batch[0].body.message).toMatch(/Write limit of 300 writes per 60 seconds/);
          break;
        }
      }
      const served = 3 + statuses.filter((status) => status === 200).length;
      expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
      // At most one lease per instance left unused when the window's limit is spent.
      expect(served).toBeLessThanOrEqual(300);
      expect(served).toBeGreaterThanOrEqual(300 - 2 * 3);
    });
  });

  describe('when Redis cannot be reached', () => {
    let app: NestFastifyApplication;
    let http: HttpClient;
    let key: string;
    const logs: string[] = [];

    beforeAll(async () => {
      key = await newKey();
      // Nothing listens on this port: the instance's Redis client never connects.
      const deadRedis = `redis://127.0.0.1:${await freePort()}`;
      const started = await startApiInProcess(
        { ...services, redisUrl: deadRedis },
        { ...LIMIT, RATE_LIMIT_REQUESTS: '1' },
      );
      app = started.app;
      http = started.http;
    });

    afterAll(async () => {
      await app?.close();
    });

    it('fails open: requests go through, and a warning is logged', async () => {
      const warn = jest
        .spyOn(Logger.prototype, 'warn')
        .mockImplementation((message: unknown) => void logs.push(String(message)));
      try {
        for (let i = 0; i < 3; i += 1) {
          const response = await createWallet(http, key);
          expect(response.status).toBe(200);
          expect(response.headers.get('ratelimit-limit')).toBeNull();
        }
      } finally {
        warn.mockRestore();
      }
      expect(logs.join('\n')).toMatch(/Rate limits are not enforced/);
    });
  });
});
