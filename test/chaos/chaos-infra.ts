import { startPostgresHa, startRedisCluster, startRedisSentinels } from '@app/localnet';
import { startOwnPostgres } from '@test/support/own-postgres';
import { startOwnRedis } from '@test/support/own-redis';
import type { Fault } from './fault-schedule';

/** Which Postgres and Redis the run owns: one node each, or highly available ones (CHAOS_HA). */
export type ChaosTopology = 'single' | 'sentinel' | 'cluster';

/** The run's own Postgres and Redis, how the service reaches them, and what goes wrong with them. */
export interface ChaosInfra {
  /** The Postgres server the run's database is made on. */
  postgresUrl: string;
  /** The service's Redis configuration (REDIS_URL, or a topology's variables). */
  redisEnv: Record<string, string>;
  /** One fault of Redis and one of Postgres. */
  faults: Fault[];
  describe: string;
  stop(): Promise<void>;
}

export function chaosTopology(value: string | undefined): ChaosTopology {
  if (value === undefined || value === '' || value === 'single') return 'single';
  if (value === 'sentinel' || value === 'cluster') return value;
  throw new Error(`CHAOS_HA must be sentinel or cluster (got "${value}")`);
}

/**
 * `single`: one Postgres (restarted: `pgDownMs` down) and one Redis (flushed). `sentinel` and
 * `cluster`: a Patroni pair behind HAProxy whose primary node is SIGKILLed (the standby
 * promoted), and Redis behind 3 Sentinels whose primary is SIGKILLed, or a 3-master Cluster one
 * of whose masters is SIGKILLed (each time a replica promoted).
 */
export async function startChaosInfra(
  topology: ChaosTopology,
  pgDownMs: number,
): Promise<ChaosInfra> {
  if (topology === 'single') {
    const [postgres, redis] = await Promise.all([startOwnPostgres(), startOwnRedis()]);
    return {
      postgresUrl: postgres.url,
      redisEnv: { REDIS_URL: redis.url },
      describe: `own postgres ${postgres.url}, own redis ${redis.url}`,
      faults: [
        {
          name: 'redis FLUSHALL',
          inject: async () => {
            await redis.flushAll();
            return 'every key gone';
          },
        },
        {
          name: 'postgres restart',
          inject: async () => {
            await postgres.restart(pgDownMs);
            return `stopped (fast), down ${pgDownMs} ms, started`;
          },
        },
      ],
      stop: stopTogether(postgres, redis),
    };
  }
  const postgres = await startPostgresHa();
  const postgresFault: Fault = {
    name: 'postgres primary killed',
    inject: async () => {
      const before = await postgres.primary();
      const promoted = await postgres.killPrimary();
      return `${before} (Patroni and Postgres) SIGKILLed; ${promoted} promoted, HAProxy follows`;
    },
  };
  if (topology === 'sentinel') {
    const redis = await startRedisSentinels(3);
    return {
      postgresUrl: postgres.url,
      redisEnv: redis.env,
      describe: `Patroni pair behind ${postgres.url}; Redis Sentinels ${redis.env.REDIS_SENTINELS}`,
      faults: [
        {
          name: 'redis primary killed',
          inject: async () => {
            const primary = await redis.primaryPort();
            const node = redis.nodes.find(({ port }) => port === primary)!;
            const other = redis.nodes.find(({ port }) => port !== primary)!;
            await node.server.kill();
            await redis.primaryBecomes(other.port);
            return `primary ${primary} SIGKILLed; the Sentinels promoted ${other.port}`;
          },
        },
        postgresFault,
      ],
      stop: stopTogether(postgres, redis),
    };
  }
  const redis = await startRedisCluster(3, 1);
  return {
    postgresUrl: postgres.url,
    redisEnv: { REDIS_CLUSTER_NODES: redis.nodesEnv },
    describe: `Patroni pair behind ${postgres.url}; Redis Cluster ${redis.nodesEnv}`,
    faults: [
      {
        name: 'redis master killed',
        inject: async () => {
          // The master of the EVM network's leases and account backlogs (tag `base`).
          const key = '{base}';
          const before = await redis.masterOf(key);
          const promoted = await redis.killMasterOf(key);
          return `master ${before} SIGKILLed; its replica ${promoted} promoted`;
        },
      },
      postgresFault,
    ],
    stop: stopTogether(postgres, redis),
  };
}

/** Stops the run's Postgres and Redis, both at once. */
function stopTogether(...services: { stop(): Promise<void> }[]): () => Promise<void> {
  return async () => {
    await Promise.all(services.map((service) => service.stop()));
  };
}
