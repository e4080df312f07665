import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort } from '@app/localnet/net.util';
import { keyPrefixFor } from './test-services';

const ROOT = join(__dirname, '..', '..');

export interface ServiceProcess {
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  readonly process: ChildProcess;
}

const started: { name: string; output(): string }[] = [];

/** Every service process this test file started, running or not, with what it printed. */
export function serviceProcessesStarted(): readonly { name: string; output(): string }[] {
  return started;
}

/** Starts `apps/<app>/src/main.ts` as its own process, the way `npm run local` does. */
export async function startServiceProcess(
  app: 'api' | 'worker',
  env: Record<string, string>,
  readyLine: RegExp,
  timeoutMs = 60_000,
): Promise<ServiceProcess> {
  // SERVICE_NODE_ARGS: extra node flags for profiling, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = process.env.SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const keyPrefix =
    env.DATABASE_URL && !env.QUEUE_PREFIX ? { QUEUE_PREFIX: keyPrefixFor(env.DATABASE_URL) } : {};
  const child = spawn(
    process.execPath,
    [...nodeArgs, '-r', '@swc-node/register', `apps/${app}/src/main.ts`],
    {
      cwd: ROOT,
      env: { ...process.env, ...keyPrefix, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  keepLog(app, env, child);
  started.push({
    name: `${app} (pid ${child.pid}, port ${env.API_PORT ?? '-'})`,
    output: () => output,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // not left running behind a failed start
      reject(new Error(`${app} not ready after ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = (): void => {
      if (readyLine.test(output)) {
        clearTimeout(timer);
        // Not left listening: matching the whole output again on every later chunk costs the
        // test process more and more (seconds of CPU under a benchmark's log lines).
        child.stdout.off('data', check);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${app} exited with ${code} before it was ready:\n${output}`));
    });
  });

  return {
    process: child,
    output: () => output,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A port for a process about to be started (see findFreePort for why not the kernel's pick). */
export function freePort(): Promise<number> {
  return findFreePort('127.0.0.1');
}

/**
 * SERVICE_LOG_DIR (set by CI): every service process's output is also written to
 * `<dir>/<app>-<API_PORT>-<pid>.log`, so a failed run's worker logs can be read afterwards.
 */
function keepLog(app: string, env: Record<string, string>, child: ChildProcess): void {
  const dir = process.env.SERVICE_LOG_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const file = createWriteStream(join(dir, `${app}-${env.API_PORT ?? 'x'}-${child.pid}.log`));
  child.stdout?.pipe(file, { end: false });
  child.stderr?.pipe(file, { end: false });
  child.once('close', () => file.end());
}
