import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate } from '@app/database';
// Its module, not @app/localnet's index: that loads the local chains into every suite.
import { withDatabase } from '@app/localnet/database-url';

export interface TestServices {
  /** A fresh, migrated database of its own. */
  databaseUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';

/**
 * Real Postgres and Redis for a suite: containers where a Docker engine is reachable, else the
 * servers named by DATABASE_URL / REDIS_URL (default: the local ones); `postgresUrl` names the
 * Postgres server instead (a suite's own). Each suite gets its own database, so no test depends
 * on another's leftovers.
 */
export async function startTestServices(postgresUrl?: string): Promise<TestServices> {
  const containers =
    !postgresUrl && dockerReachable() ? await startContainers().catch(() => null) : null;
  const serverUrl =
    postgresUrl ?? containers?.postgresUrl ?? process.env.DATABASE_URL ?? LOCAL_POSTGRES;
  const redisUrl = containers?.redisUrl ?? process.env.REDIS_URL ?? LOCAL_REDIS;
  const databaseUrl = withDatabase(serverUrl, `ais_test_${randomBytes(6).toString('hex')}`);
  await migrate(databaseUrl);
  return {
    databaseUrl,
    redisUrl,
    stop: async () => {
      await dropDatabase(databaseUrl);
      await containers?.stop();
    },
  };
}

/**
 * The Redis key prefix (QUEUE_PREFIX) of the service under test when a test names none: one per
 * suite database, so suites sharing a Redis do not share queues, channels or rate-limit counts
 * (all requests of every suite come from 127.0.0.1 and would otherwise fill one sign-in budget).
 */
export function keyPrefixFor(databaseUrl: string): string {
  return `ais-${new URL(databaseUrl).pathname.slice(1)}`;
}

function dockerReachable(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

async function startContainers(): Promise<{
  postgresUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}> {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const { RedisContainer } = await import('@testcontainers/redis');
  const [postgres, redis] = await Promise.all([
    new PostgreSqlContainer('postgres:16-alpine').start(),
    new RedisContainer('redis:7-alpine').start(),
  ]);
  return {
    postgresUrl: postgres.getConnectionUri(),
    redisUrl: redis.getConnectionUrl(),
    stop: async () => {
      await Promise.all([postgres.stop(), redis.stop()]);
    },
  };
}

async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
