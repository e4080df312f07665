/**
 * `npm run local`: the whole service on one machine. Migrates the database, starts the local
 * chains (state kept in .localnet/), then the API and the worker as their own processes on the
 * `local` profile, and stops everything on Ctrl-C. `npm run local -- --fresh` first drops the
 * chains' state, the database and the service's Redis keys together (see fresh-start.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { loadConfig } from '@app/config';
import { migrate } from '@app/database';
import { resetLocalState } from './fresh-start';
import { startLocalChains } from './local-chains';
import { chainBehaviourFromEnv, describeChainBehaviour } from './localnet-env';
import { logLineFormatter } from './log-lines';

const ROOT = join(__dirname, '..', '..', '..');

async function main(): Promise<void> {
  const fresh = freshFromArgs(process.argv.slice(2));
  const config = loadConfig({ APP_PROFILE: 'local', ...process.env });
  if (config.profile !== 'local') throw new Error('npm run local runs the local profile only');
  const dataDir = join(ROOT, '.localnet');
  if (fresh) {
    await resetLocalState({
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      redisPrefix: config.queue.prefix,
      dataDir,
    });
    console.log(`Fresh start: new chains, and ${config.databaseUrl} and Redis keys emptied.`);
  }

  const applied = await migrate(config.databaseUrl).catch((error: unknown) => {
    throw new Error(
      `Cannot reach Postgres at ${config.databaseUrl} (${String(error)}). Start it, or set DATABASE_URL.`,
    );
  });
  console.log(
    applied.length ? `Migrations applied: ${applied.join(', ')}` : 'Database is up to date.',
  );

  const behaviour = chainBehaviourFromEnv(process.env);
  const chains = await startLocalChains({ ...behaviour, dataDir });
  const admin = {
    user: process.env.ADMIN_USER ?? 'admin',
    password: process.env.ADMIN_PASSWORD ?? randomBytes(12).toString('base64url'),
  };
  const env = {
    ...process.env,
    APP_PROFILE: 'local',
    ADMIN_USER: admin.user,
    ADMIN_PASSWORD: admin.password,
    LOCAL_EVM_RPC_URL: chains.evmRpcUrl,
    LOCAL_SOLANA_RPC_URL: chains.solanaRpcUrl,
    LOCAL_SOLANA_WS_URL: chains.solanaWsUrl,
  };
  const api = run('api', env, /API listening/);
  const worker = run('worker', env, /Worker ready/);
  const children = [api.child, worker.child];

  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    await Promise.all(children.map(terminate));
    await chains.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  for (const child of children) {
    child.once('exit', (code) => {
      if (!stopping) {
        console.error(`A service exited (code ${code}); stopping the stack.`);
        void stop(1);
      }
    });
  }

  await Promise.all([api.ready, worker.ready]);
  const base = `http://${config.api.host}:${config.api.port}`;
  console.log(
    [
      '',
      `  API        ${base}`,
      `  Docs       ${base}/docs`,
      `  Dashboard  ${base}/dashboard`,
      `  Queues     ${base}/admin/queues (user ${admin.user}, password ${admin.password})`,
      `  Health     ${base}/health`,
      `  EVM RPC    ${chains.evmRpcUrl} (chain id 31337; every EVM network)`,
      `  Solana RPC ${chains.solanaRpcUrl} (WebSocket ${chains.solanaWsUrl})`,
      ...describeChainBehaviour(behaviour).map((line) => `  ${line}`),
      '',
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

function freshFromArgs(args: string[]): boolean {
  const unknown = args.filter((arg) => arg !== '--fresh');
  if (unknown.length) throw new Error(`Unknown argument ${unknown[0]}; the only one is --fresh`);
  return args.includes('--fresh');
}

/** Starts an app as its own process; `ready` resolves once it prints its ready line. */
function run(
  app: 'api' | 'worker',
  env: NodeJS.ProcessEnv,
  readyLine: RegExp,
): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', `apps/${app}/src/main.ts`], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const format = logLineFormatter(app);
  const lines = (stream: NodeJS.ReadableStream | null): Interface | undefined =>
    stream ? createInterface({ input: stream, crlfDelay: Infinity }) : undefined;
  lines(child.stderr)?.on('line', (line) => process.stderr.write(format(line)));
  const stdout = lines(child.stdout);
  stdout?.on('line', (line) => process.stdout.write(format(line)));
  const ready = new Promise<void>((resolve) => {
    const watch = (line: string): void => {
      if (!readyLine.test(line)) return;
      stdout?.off('line', watch);
      resolve();
    };
    stdout?.on('line', watch);
  });
  return { child, ready };
}

function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
