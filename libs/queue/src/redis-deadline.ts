/**
 * Bounds a Redis round trip on a request's path. Redis is transport, not the source of truth:
 * when it is away a request goes on without it rather than wait for ioredis to reconnect.
 * The work itself is not cancelled; it may still land later, which every caller tolerates.
 */
export function redisDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
