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
 * With Sentinels the client asks them for the primary at every (re)connection, at least every
 * second while it is away; a command refused `READONLY` (a primary demoted while alive, on a
 * server that keeps its clients) reconnects too. Not ioredis's `failoverDetector`: its
 * `+switch-master` handler disconnects the connector, and when that lands while a connection is
 * still reconnecting (its primary was killed), ioredis ends the connection for good: a worker
 * whose consumers and queue connection never came back, in one CI run of
 * test/e2e/redis-sentinel. A demoted Redis 7 primary drops its clients itself.
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
    // No auto-pipelining on a Cluster: ioredis groups a turn's commands by the node it expects
    // and then refuses a group whose keys it maps to other nodes ("All keys in the pipeline
    // should belong to the same slots allocation group", ioredis issues 1264, 1602, 2109): the
    // shared client's scripts of several networks' slots in one turn failed so, and a worker
    // whose start-up lease calls failed exited (test/integration/queue/redis-cluster.test.ts).
    const { enableOfflineQueue, enableAutoPipelining: _notOnACluster, ...perNode } = options;
    return new Cluster(cluster.nodes, {
      redisOptions: { ...auth, ...(cluster.tls ? { tls: {} } : {}), ...perNode },
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
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
