import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { findFreePort, waitUntil } from '../net.util';
import { EPHEMERAL_REDIS_ARGS, spawnRedisServer, type RedisServerProcess } from './redis-server';
import { requireTools } from './required-tools';

/** The name the Sentinels know the primary by (REDIS_SENTINEL_NAME). */
export const SENTINEL_PRIMARY_NAME = 'ais-primary';

/** A primary, a replica and Sentinels watching them, of its own, on loopback ports. */
export interface OwnRedisSentinels {
  /** The service's configuration: REDIS_SENTINELS and REDIS_SENTINEL_NAME. */
  readonly env: { REDIS_SENTINELS: string; REDIS_SENTINEL_NAME: string };
  /** The data nodes, the first started as the primary. */
  readonly nodes: { port: number; server: RedisServerProcess }[];
  /** The port of the node the Sentinels name as primary now. */
  primaryPort(): Promise<number>;
  /** Waits until the Sentinels name the node on `port` (throws after `timeoutMs`). */
  primaryBecomes(port: number, timeoutMs?: number): Promise<void>;
  /** SENTINEL FAILOVER: the live primary is demoted and its replica promoted. */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `redis-server` as a primary and one replica, and `sentinels` Sentinels (a quorum of a majority)
 * that declare a silent primary down after 1 s. Nothing is persisted.
 */
export async function startRedisSentinels(sentinels = 1): Promise<OwnRedisSentinels> {
  requireTools('Redis Sentinels', ['redis-server'], ['redis-server']);
  const dir = mkdtempSync(join(tmpdir(), 'ais-sentinel-'));
  const [first, second] = [await findFreePort('127.0.0.1'), await findFreePort('127.0.0.1')];
  const nodes = [
    {
      port: first,
      server: await spawnRedisServer([
        '--port',
        String(first),
        '--dir',
        dir,
        ...EPHEMERAL_REDIS_ARGS,
      ]),
    },
    {
      port: second,
      server: await spawnRedisServer([
        '--port',
        String(second),
        '--replicaof',
        '127.0.0.1',
        String(first),
        // A replica writes the primary's snapshot here on its first sync.
        '--dir',
        dir,
        ...EPHEMERAL_REDIS_ARGS,
      ]),
    },
  ];
  const quorum = Math.floor(sentinels / 2) + 1;
  const watchers: { port: number; server: RedisServerProcess }[] = [];
  for (let i = 0; i < sentinels; i++) {
    const port = await findFreePort('127.0.0.1');
    const config = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      config,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${SENTINEL_PRIMARY_NAME} 127.0.0.1 ${first} ${quorum}`,
        `sentinel down-after-milliseconds ${SENTINEL_PRIMARY_NAME} 1000`,
        `sentinel failover-timeout ${SENTINEL_PRIMARY_NAME} 5000`,
        '',
      ].join('\n'),
    );
    watchers.push({ port, server: await spawnRedisServer([config, '--sentinel']) });
  }
  const askSentinel = async (...command: string[]): Promise<unknown> => {
    const client = new Redis(watchers[0].port, '127.0.0.1', { maxRetriesPerRequest: 1 });
    try {
      return await client.call('SENTINEL', ...command);
    } finally {
      client.disconnect();
    }
  };
  const primaryPort = async () => {
    const [, port] = (await askSentinel('get-master-addr-by-name', SENTINEL_PRIMARY_NAME)) as [
      string,
      string,
    ];
    return Number(port);
  };
  return {
    env: {
      REDIS_SENTINELS: watchers.map(({ port }) => `127.0.0.1:${port}`).join(','),
      REDIS_SENTINEL_NAME: SENTINEL_PRIMARY_NAME,
    },
    nodes,
    primaryPort,
    primaryBecomes: (port, timeoutMs = 30_000) =>
      waitUntil(async () => (await primaryPort()) === port, timeoutMs, {
        intervalMs: 200,
        what: `the Sentinels to promote ${port}`,
      }),
    failover: async () => {
      await askSentinel('FAILOVER', SENTINEL_PRIMARY_NAME);
    },
    stop: async () => {
      await Promise.all([...watchers, ...nodes].map(({ server }) => server.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
