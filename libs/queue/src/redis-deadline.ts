/** Redis left a round trip unanswered past its deadline (stalled, or a silent host). */
export class RedisDeadlineExceeded extends Error {
  constructor(what: string, ms: number) {
    super(`Redis did not ${what} within ${ms} ms`);
    this.name = 'RedisDeadlineExceeded';
  }
}

/**
 * Bounds a Redis round trip on a request's path. Redis is transport, not the source of truth:
 * when it is away a request goes on without it rather than wait for ioredis to reconnect.
 * The work itself is not cancelled; it may still land later, which every caller tolerates.
 */
export function redisDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisDeadlineExceeded(what, ms)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
