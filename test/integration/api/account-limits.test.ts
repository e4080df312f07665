import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerSession } from '@test/support/accounts';
import { startApiInstances } from '@test/support/api-app';
import type { HttpClient } from '@test/support/http-client';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

/**
 * What more API keys cannot buy: an account holds at most MAX_API_KEYS_PER_ACCOUNT active keys,
 * and all its keys share one write limit, counted in Redis across API instances.
 */
describe('limits per account', () => {
  let services: TestServices;
  let apps: NestFastifyApplication[] = [];
  let a: HttpClient;
  let b: HttpClient;

  beforeAll(async () => {
    services = await startTestServices();
    let clients: HttpClient[];
    ({ apps, clients } = await startApiInstances(services, 2, {
      MAX_API_KEYS_PER_ACCOUNT: '3',
      RATE_LIMIT_REQUESTS: '100',
      ACCOUNT_WRITE_LIMIT: '4/60',
    }));
    [a, b] = clients;
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await services?.stop();
  });

  const issue = (session: HttpClient) => session.post('/account/api-keys', { name: 'limit' });

  it('caps the active API keys of an account with 409; revoked keys do not count', async () => {
    const { session } = await registerSession(a.baseUrl, 'keys');
    // Issued at once: the cap holds under concurrency, not only one request after another.
    const issued = await Promise.all(Array.from({ length: 5 }, () => issue(session)));
    expect(issued.map(({ status }) => status).sort()).toEqual([200, 200, 200, 409, 409]);
    const refused = issued.find(({ status }) => status === 409)!;
    expect(refused.body).toEqual({
      success: false,
      error: 'Conflict',
      message:
        'This account already has 3 active API keys, the most it may hold: revoke one before ' +
        'issuing another.',
      timestamp: expect.any(String),
    });
    const listed = (await session.get('/account/api-keys')).body.data.api_keys;
    expect(listed).toHaveLength(3);

    expect((await session.delete(`/account/api-keys/${listed[0].id}`)).status).toBe(200);
    expect((await issue(session)).status).toBe(200);
    expect((await issue(session)).status).toBe(409);

    // Another account has its own allowance.
    const other = await registerSession(b.baseUrl, 'keys-other');
    expect((await issue(other.session)).status).toBe(200);
  });

  it('counts the writes of all the keys of an account against one limit, on every instance', async () => {
    const { session } = await registerSession(a.baseUrl, 'writes');
    const [first, second] = await Promise.all([issue(session), issue(session)]);
    const keyA = a.with({ 'api-key': first.body.data.key });
    const keyB = b.with({ 'api-key': second.body.data.key });
    const createWallet = (http: HttpClient) => http.post('/wallets', { network: 'solana' });

    const answers = [];
    for (const http of [keyA, keyB, keyA, keyB]) answers.push(await createWallet(http));
    expect(answers.map(({ status }) => status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['3', '2', '1', '0']);

    const refused = await createWallet(keyA);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      success: false,
      error: 'Too many requests',
      message:
        'Write limit of 4 writes per 60 seconds for this account (all its API keys together) ' +
        `exceeded; retry in ${retryAfter} s.`,
      timestamp: expect.any(String),
    });
    // The second key is refused as well: it has used 2 of its 100 requests, the account 4 of 4.
    expect((await createWallet(keyB)).status).toBe(429);

    // Reads go on, limited per key only.
    const read = await keyB.get('/operations/00000000-0000-4000-8000-000000000000');
    expect(read.status).toBe(404);
    expect(read.headers.get('ratelimit-limit')).toBe('100');
  });
});
