import { Logger, type ExecutionContext } from '@nestjs/common';
import type Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { AppError } from '@app/common';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimitService } from './rate-limit.service';

const config = loadConfig({
  RATE_LIMIT_REQUESTS: '2',
  RATE_LIMIT_WINDOW_SECONDS: '60',
  ACCOUNT_WRITE_LIMIT: '3/60',
});

/** Just enough of ioredis: a counter per key, with the script's reply shape. */
function fakeRedis(overrides: Partial<Record<'status' | 'evalsha' | 'eval', unknown>> = {}) {
  const counts = new Map<string, number>();
  const reply = (key: string) => {
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return Promise.resolve([counts.get(key), 59_500]);
  };
  return {
    status: 'ready',
    evalsha: jest.fn((_sha: string, _n: number, key: string) => reply(key)),
    eval: jest.fn((_script: string, _n: number, key: string) => reply(key)),
    ...overrides,
  };
}

function httpContext(apiKeyId?: string, accountId = 'account-1', method = 'GET') {
  const reply = { headers: jest.fn() };
  const request = { apiKeyId, accountId: apiKeyId && accountId, method };
  const context = {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }),
  } as unknown as ExecutionContext;
  return { context, reply };
}

function guardWith(redis: ReturnType<typeof fakeRedis>) {
  return new RateLimitGuard(config, new RateLimitService(config, redis as unknown as Redis));
}

describe('RateLimitGuard', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('counts per API key, sets the RateLimit headers and refuses past the limit with 429', async () => {
    const guard = guardWith(fakeRedis());
    const first = httpContext('key-a');
    await expect(guard.canActivate(first.context)).resolves.toBe(true);
    expect(first.reply.headers).toHaveBeenCalledWith({
      'RateLimit-Limit': '2',
      'RateLimit-Remaining': '1',
      'RateLimit-Reset': '60',
    });
    await expect(guard.canActivate(httpContext('key-a').context)).resolves.toBe(true);

    const refused = await guard.canActivate(httpContext('key-a').context).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      status: 429,
      message: 'Rate limit of 2 requests per 60 seconds exceeded; retry in 60 s.',
      headers: { 'Retry-After': '60', 'RateLimit-Remaining': '0' },
    });
    await expect(guard.canActivate(httpContext('key-b').context)).resolves.toBe(true);
  });

  it('limits the writes of all the keys of one account together, and not their reads', async () => {
    const guard = guardWith(fakeRedis());
    const write = (key: string, account = 'acct') => httpContext(key, account, 'POST').context;
    await expect(guard.canActivate(write('key-a'))).resolves.toBe(true);
    await expect(guard.canActivate(write('key-b'))).resolves.toBe(true);
    const third = httpContext('key-c', 'acct', 'POST');
    await expect(guard.canActivate(third.context)).resolves.toBe(true);
    // The account has 0 writes left, key-c 1 request: the headers show the tighter.
    expect(third.reply.headers).toHaveBeenCalledWith(
      expect.objectContaining({ 'RateLimit-Limit': '3', 'RateLimit-Remaining': '0' }),
    );

    const refused = await guard.canActivate(write('key-d')).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      status: 429,
      message:
        'Write limit of 3 writes per 60 seconds for this account (all its API keys together) ' +
        'exceeded; retry in 60 s.',
      headers: { 'Retry-After': '60' },
    });
    await expect(guard.canActivate(httpContext('key-d', 'acct', 'GET').context)).resolves.toBe(
      true,
    );
    await expect(guard.canActivate(write('key-e', 'other'))).resolves.toBe(true);
  });

  it('leaves routes without an API key (public, session) alone', async () => {
    const redis = fakeRedis();
    const { context, reply } = httpContext(undefined);
    await expect(guardWith(redis).canActivate(context)).resolves.toBe(true);
    expect(redis.evalsha).not.toHaveBeenCalled();
    expect(reply.headers).not.toHaveBeenCalled();
  });

  it('loads the script when Redis does not know it yet', async () => {
    const redis = fakeRedis({
      evalsha: jest.fn(() => Promise.reject(new Error('NOSCRIPT No matching script.'))),
    });
    await expect(guardWith(redis).canActivate(httpContext('k').context)).resolves.toBe(true);
    expect(redis.eval).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['reconnecting', fakeRedis({ status: 'reconnecting' })],
    ['failing', fakeRedis({ evalsha: jest.fn(() => Promise.reject(new Error('ECONNRESET'))) })],
    ['hanging', fakeRedis({ evalsha: jest.fn(() => new Promise(() => undefined)) })],
  ])('fails open, with a warning, when Redis is %s', async (_, redis) => {
    const { context, reply } = httpContext('k');
    await expect(guardWith(redis).canActivate(context)).resolves.toBe(true);
    expect(reply.headers).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/Rate limits are not enforced/));
  });

  it('after a count left unanswered, fails open without asking a stalled Redis again', async () => {
    const redis = fakeRedis({ evalsha: jest.fn(() => new Promise(() => undefined)) });
    const guard = guardWith(redis);
    // A write counts per key and per account: only the first count waits out the deadline.
    await expect(guard.canActivate(httpContext('k', 'account-1', 'POST').context)).resolves.toBe(
      true,
    );
    await expect(guard.canActivate(httpContext('k', 'account-1', 'POST').context)).resolves.toBe(
      true,
    );
    expect(redis.evalsha).toHaveBeenCalledTimes(1);
  });
});
