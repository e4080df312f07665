import Redis from 'ioredis';
import { EPHEMERAL_REDIS_ARGS, spawnRedisServer } from '@app/localnet';
import { freePort } from '@test/support/service-process';

/** A redis-server of a test's own (the chaos run, the event feed suite), which it may flush at will. */
export interface OwnRedis {
  readonly url: string;
  /** FLUSHALL: every queue, job, lock and cache entry of the service is gone at once. */
  flushAll(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `redis-server` (from PATH, or CHAOS_REDIS_SERVER) on a free port, nothing persisted. The shared
 * Redis of the machine is never touched: other suites use it at the same time.
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const server = await spawnRedisServer(['--port', String(port), ...EPHEMERAL_REDIS_ARGS]);
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    flushAll: async () => {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await client.connect();
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
    stop: () => server.stop(),
  };
}
