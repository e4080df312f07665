import Redis from 'ioredis';
import { EPHEMERAL_REDIS_ARGS, spawnRedisServer } from '@app/localnet';
import { freePort } from '@test/support/service-process';

/** A redis-server of a test's own (the chaos run, the event feed suite), which it may flush at will. */
export interface OwnRedis {
  readonly url: string;
  /** FLUSHALL: every queue, job, lock and cache entry of the service is gone at once. */
  flushAll(): Promise<void>;
  /** CLIENT PAUSE ALL: every other client's command waits unanswered for `ms`. */
  pauseClients(ms: number): Promise<void>;
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
  const once = async (command: (client: Redis) => Promise<unknown>): Promise<void> => {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await client.connect();
      await command(client);
    } finally {
      client.disconnect();
    }
  };
  return {
    url,
    flushAll: () => once((client) => client.flushall()),
    pauseClients: (ms) => once((client) => client.client('PAUSE', ms, 'ALL')),
    stop: () => server.stop(),
  };
}
