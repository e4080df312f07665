/**
 * `npm run local:ha`: `npm run local` on highly available Redis and Postgres of its own, all on
 * 127.0.0.1 ports, for trying failovers by hand:
 *
 *   npm run local:ha -- --redis=cluster|sentinel|single --postgres=ha|single
 *
 * `--redis=cluster` (the default) is a Redis Cluster of 3 masters with a replica each;
 * `sentinel` is a primary, a replica and 3 Sentinels; `single` the machine's Redis (REDIS_URL).
 * `--postgres=ha` (the default) is a Patroni pair with a synchronous standby, their leader lock
 * in etcd, behind HAProxy; `single` the machine's Postgres (DATABASE_URL). Their data lives in
 * temporary directories, gone when the command stops (Ctrl-C). The service itself is
 * `npm run local`, run with the endpoints of these.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { withDatabase } from './database-url';
import { startPostgresHa } from './ha/postgres-ha';
import { startRedisCluster } from './ha/redis-cluster';
import { startRedisSentinels } from './ha/redis-sentinel';

const ROOT = join(__dirname, '..', '..', '..');

interface Choice {
  redis: 'cluster' | 'sentinel' | 'single';
  postgres: 'ha' | 'single';
}

async function main(): Promise<void> {
  const choice = choiceFromArgs(process.argv.slice(2));
  const stops: (() => Promise<void>)[] = [];
  const env: Record<string, string> = {};
  const lines: string[] = [];
  try {
    if (choice.redis === 'cluster') {
      const cluster = await startRedisCluster(3, 1);
      stops.push(() => cluster.stop());
      env.REDIS_CLUSTER_NODES = cluster.nodesEnv;
      lines.push(`  Redis      Cluster, 3 masters + 3 replicas: ${cluster.nodesEnv}`);
    } else if (choice.redis === 'sentinel') {
      const sentinels = await startRedisSentinels(3);
      stops.push(() => sentinels.stop());
      Object.assign(env, sentinels.env);
      lines.push(
        `  Redis      primary 127.0.0.1:${sentinels.nodes[0].port}, replica ` +
          `127.0.0.1:${sentinels.nodes[1].port}, Sentinels ${sentinels.env.REDIS_SENTINELS}`,
      );
    }
    if (choice.postgres === 'ha') {
      const postgres = await startPostgresHa();
      stops.push(() => postgres.stop());
      env.DATABASE_URL = withDatabase(postgres.url, 'asset_issuance');
      lines.push(
        `  Postgres   ${env.DATABASE_URL} (HAProxy; Patroni primary ${await postgres.primary()})`,
      );
    }
  } catch (error) {
    await stopAll(stops);
    throw error;
  }
  console.log(['', 'Highly available services up:', ...lines, ''].join('\n'));

  const service = spawn(
    process.execPath,
    ['-r', '@swc-node/register', 'apps/localnet/src/local-stack.ts'],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: 'inherit',
    },
  );
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    service.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const code = await new Promise<number>((resolve) =>
    service.once('exit', (exitCode) => resolve(exitCode ?? 1)),
  );
  await stopAll(stops);
  process.exit(code);
}

function choiceFromArgs(args: string[]): Choice {
  const choice: Choice = { redis: 'cluster', postgres: 'ha' };
  for (const arg of args) {
    const redis = /^--redis=(cluster|sentinel|single)$/.exec(arg);
    const postgres = /^--postgres=(ha|single)$/.exec(arg);
    if (redis) choice.redis = redis[1] as Choice['redis'];
    else if (postgres) choice.postgres = postgres[1] as Choice['postgres'];
    else {
      throw new Error(
        `Unknown argument ${arg}; use --redis=cluster|sentinel|single and --postgres=ha|single`,
      );
    }
  }
  return choice;
}

async function stopAll(stops: (() => Promise<void>)[]): Promise<void> {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
