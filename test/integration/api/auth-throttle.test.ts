import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerSession, TEST_PASSWORD, uniqueEmail } from '@test/support/accounts';
import { startApiInProcess, startApiInstances } from '@test/support/api-app';
import { HttpClient, type HttpResponse } from '@test/support/http-client';
import { startOwnRedis } from '@test/support/own-redis';
import { freePort } from '@test/support/service-process';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(90_000);

/** Every other limit out of the way of the one a test looks at. */
const LOOSE = {
  LOGIN_LIMIT_PER_EMAIL: '1000/60',
  LOGIN_LIMIT_PER_IP: '1000/60',
  REGISTER_LIMIT_PER_EMAIL: '1000/60',
  REGISTER_LIMIT_PER_IP: '1000/60',
};

const login = (http: HttpClient, email: string, password: string) =>
  http.post('/account/login', { email, password });

function expectTooManyRequests(response: HttpResponse, limit: RegExp, window: number): void {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(window);
  expect(response.body).toEqual({
    success: false,
    error: 'Too many requests',
    message: expect.stringMatching(limit),
    timestamp: expect.any(String),
  });
  expect(response.body.message).toContain(`retry in ${retryAfter} s.`);
  expect(response.headers.get('x-request-id')).toBeTruthy();
}

const countBy = (responses: HttpResponse[]) =>
  responses.reduce<Record<number, number>>((counts, { status }) => {
    counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }, {});

/**
 * Sign-in and registration are limited per email and per client address before any password is
 * hashed, with the count in Redis: every API instance of a deployment shares it. Each API here
 * is in-process on 127.0.0.1, so all requests come from one address.
 */
describe('sign-in and registration throttles', () => {
  let services: TestServices;
  const apps: NestFastifyApplication[] = [];

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await services?.stop();
  });

  /**
   * A deployment of `count` API instances with these limits, in a Redis key space of its own:
   * counts left by another test (all from 127.0.0.1) do not carry over.
   */
  let deployments = 0;
  const instances = async (count: number, env: Record<string, string>) => {
    deployments += 1;
    const prefix = `throttle-${process.pid}-${Date.now()}-${deployments}`;
    const started = await startApiInstances(services, count, {
      ...LOOSE,
      QUEUE_PREFIX: prefix,
      ...env,
    });
    apps.push(...started.apps);
    return started.clients;
  };

  it('refuses guesses at one email past the limit before checking them, even the right password', async () => {
    const [a, b] = await instances(2, { LOGIN_LIMIT_PER_EMAIL: '5/4' });
    const { email } = await registerSession(a.baseUrl, 'guessed');

    // 50 wrong passwords at once, spread over both instances.
    const guesses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => login(i % 2 ? a : b, email, `wrong password ${i}`)),
    );
    expect(countBy(guesses)).toEqual({ 401: 5, 429: 45 });
    for (const refused of guesses.filter(({ status }) => status === 429)) {
      expectTooManyRequests(
        refused,
        /^Too many failed sign-ins for this email: at most 5 per 4 seconds;/,
        4,
      );
    }

    // The right password is refused too, on either instance, with the email written otherwise.
    expectTooManyRequests(await login(a, email, TEST_PASSWORD), /for this email/, 4);
    expectTooManyRequests(
      await login(b, ` ${email.toUpperCase()}`, TEST_PASSWORD),
      /for this email/,
      4,
    );
    // Another email is not affected.
    const other = await registerSession(a.baseUrl, 'bystander');
    expect((await login(b, other.email, TEST_PASSWORD)).status).toBe(200);

    // Once the window has passed, the right password works.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect((await login(b, email, TEST_PASSWORD)).status).toBe(200);
  });

  it('counts only failures against an email: sign-ins that succeed give their attempt back', async () => {
    const [a] = await instances(1, { LOGIN_LIMIT_PER_EMAIL: '3/60' });
    const { email } = await registerSession(a.baseUrl, 'regular');
    for (let i = 0; i < 6; i += 1) expect((await login(a, email, TEST_PASSWORD)).status).toBe(200);
    for (let i = 0; i < 3; i += 1)
      expect((await login(a, email, 'not it at all')).status).toBe(401);
    expectTooManyRequests(await login(a, email, TEST_PASSWORD), /for this email/, 60);
  });

  it('limits sign-in attempts per client address, whatever X-Forwarded-For says', async () => {
    const [a, b] = await instances(2, { LOGIN_LIMIT_PER_IP: '4/60' });
    const emails = Array.from({ length: 6 }, () => uniqueEmail('spray'));
    const answers = [];
    for (const [i, email] of emails.entries()) {
      const http = (i % 2 ? a : b).with({ 'x-forwarded-for': `198.51.100.${i}` });
      answers.push(await login(http, email, 'one guess per account'));
    }
    expect(answers.map(({ status }) => status)).toEqual([401, 401, 401, 401, 429, 429]);
    expectTooManyRequests(
      answers[4],
      /^Too many sign-in attempts from this address: at most 4 per 60 seconds;/,
      60,
    );
  });

  it('limits registrations per client address and per email', async () => {
    const [a, b] = await instances(2, { REGISTER_LIMIT_PER_IP: '3/60' });
    const register = (http: HttpClient, email: string) =>
      http.post('/account/register', { email, password: TEST_PASSWORD });
    const answers = [];
    for (let i = 0; i < 4; i += 1)
      answers.push(await register(i % 2 ? a : b, uniqueEmail('batch')));
    expect(answers.map(({ status }) => status)).toEqual([200, 200, 200, 429]);
    expectTooManyRequests(
      answers[3],
      /^Too many registrations from this address: at most 3 per 60 seconds;/,
      60,
    );

    const [c] = await instances(1, { REGISTER_LIMIT_PER_EMAIL: '2/60' });
    const email = uniqueEmail('taken');
    const tries = [];
    for (let i = 0; i < 3; i += 1) tries.push(await register(c, email));
    expect(tries.map(({ status }) => status)).toEqual([200, 409, 429]);
    expectTooManyRequests(tries[2], /^Too many registrations for this email:/, 60);
  });

  it('counts in the instance when Redis cannot be reached: sign-ins go on, promptly, within the limits', async () => {
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const { app, http } = await startApiInProcess(
      { ...services, redisUrl: deadRedis },
      { LOGIN_LIMIT_PER_EMAIL: '2/60', LOGIN_LIMIT_PER_IP: '4/60', REGISTER_LIMIT_PER_IP: '1/60' },
    );
    const warnings: string[] = [];
    const warn = jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation((message: unknown) => void warnings.push(String(message)));
    try {
      const started = Date.now();
      const { email } = await registerSession(http.baseUrl, 'no-redis');
      expectTooManyRequests(
        await http.post('/account/register', {
          email: uniqueEmail('next'),
          password: TEST_PASSWORD,
        }),
        /^Too many registrations from this address: at most 1 per 60 seconds;/,
        60,
      );
      const answers = [];
      for (const password of ['wrong', TEST_PASSWORD, 'wrong again', 'wrong a third time']) {
        answers.push(await login(http, email, password));
      }
      // The right password gave its attempt back, as with Redis.
      expect(answers.map(({ status }) => status)).toEqual([401, 200, 401, 429]);
      expectTooManyRequests(answers[3], /^Too many failed sign-ins for this email:/, 60);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      warn.mockRestore();
      await app.close();
    }
    // The throttles asked Redis, could not count there, and said so once.
    expect(warnings.filter((line) => /Rate limits are not enforced/.test(line))).toHaveLength(1);
  });

  it('holds the limit when Redis answers too late: a burst of guesses cannot slow the API past the throttle', async () => {
    const redis = await startOwnRedis();
    const { app, http } = await startApiInProcess(
      { ...services, redisUrl: redis.url },
      { ...LOOSE, LOGIN_LIMIT_PER_EMAIL: '5/60' },
    );
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { email } = await registerSession(http.baseUrl, 'stalled-redis');
      // Redis holds every count past the API's 500 ms deadline while the guesses arrive.
      await redis.pauseClients(3_000);
      const guesses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => login(http, email, `wrong password ${i}`)),
      );
      expect(countBy(guesses)).toEqual({ 401: 5, 429: 45 });
      expectTooManyRequests(
        guesses.find(({ status }) => status === 429)!,
        /^Too many failed sign-ins for this email: at most 5 per 60 seconds;/,
        60,
      );
    } finally {
      warn.mockRestore();
      await app.close();
      await redis.stop();
    }
  });
});
