import Redis, { Cluster, type RedisOptions } from 'ioredis';
import type { AppConfig } from '@app/config';

/** A connection to the configured Redis: one node (by URL or through Sentinels) or a Cluster. */
export type RedisConnection = Redis | Cluster;

type RedisTopology = Pick<AppConfig, 'redisUrl' | 'redisSentinel' | 'redisCluster' | 'redisAuth'>;

/** What a caller may ask of its connection, on every topology. */
export type ConnectionOptions = Pick<
  RedisOptions,
  'maxRetriesPerRequest' | 'enableOfflineQueue' | 'enableAutoPipelining'
>;

/**
 * A Redis connection of the configured topology (docs/deployment.md#redis): one node by URL,
 * the primary a set of Sentinels names, or a Cluster. Every connection of the service is made
 * here, and every key it uses stays within one hash slot per command (the key layout in
 * docs/deployment.md#redis-key-layout).
 *
 * With Sentinels the client asks them for the primary at every (re)connection. `failoverDetector`
 * also listens for their `+switch-master`, so a connection to a primary demoted while alive moves
 * to the new one at once, not at its next error; a command refused `READONLY` reconnects too.
 * BullMQ workers are reported to hang on a demoted node without this (bullmq issue 3088); on this
 * machine's Redis 7.0 the demoted node drops its clients itself, and test/e2e/redis-sentinel
 * passes without the two, so they guard servers that do not.
 *
 * With a Cluster the client follows MOVED and ASK replies, and reloads the slot map when a node
 * goes away: a replica promoted for a dead master is used as soon as the cluster names it.
 */
export function redisClient(
  config: RedisTopology,
  options: ConnectionOptions = {},
): RedisConnection {
  const { redisSentinel: sentinel, redisCluster: cluster, redisAuth: auth } = config;
  if (cluster) {
    const { enableOfflineQueue, enableAutoPipelining, ...perNode } = options;
    return new Cluster(cluster.nodes, {
      redisOptions: { ...auth, ...(cluster.tls ? { tls: {} } : {}), ...perNode },
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      ...(enableAutoPipelining === undefined ? {} : { enableAutoPipelining }),
      clusterRetryStrategy: retryEverySecond,
      // A command sent while a master's replica is being promoted waits for the new slot map
      // rather than failing at once (CLUSTERDOWN, or a node gone).
      retryDelayOnClusterDown: 200,
      retryDelayOnFailover: 200,
    });
  }
  if (!sentinel) return new Redis(config.redisUrl, { ...auth, ...options });
  return new Redis({
    sentinels: sentinel.sentinels,
    name: sentinel.name,
    ...auth,
    failoverDetector: true,
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
    retryStrategy: retryEverySecond,
    ...options,
  });
}

/**
 * A promotion takes a second or two: try again at least every second meanwhile (ioredis backs
 * off to 2 s), so the new primary is used within a second of being named.
 */
function retryEverySecond(times: number): number {
  return Math.min(times * 50, 1_000);
}

/** Resolves once the connection can take commands (it has no offline queue). */
export function connectionReady(connection: RedisConnection): Promise<void> {
  if (connection.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => connection.once('ready', () => resolve()));
}
