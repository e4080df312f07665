import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort, waitUntil } from './net.util';

export interface AnvilOptions {
  /** 0 or undefined: a free port is picked before anvil starts (anvil --silent cannot report it). */
  port?: number;
  /** Loads the chain from this file if it exists and dumps it there periodically and on exit. */
  stateFile?: string;
  /** 31337 unless told (another chain, for a node of the wrong chain). */
  chainId?: number;
  args?: string[];
}

export interface AnvilHandle {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilHandle> {
  // A free port picked ahead can be taken by someone else before anvil binds it: retry then.
  const attempts = opts.port ? 1 : 3;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = opts.port || (await findFreePort(HOST));
    try {
      return await launch(port, opts);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

async function launch(port: number, opts: AnvilOptions): Promise<AnvilHandle> {
  const chainId = String(opts.chainId ?? 31337);
  const args = ['--host', HOST, '--port', String(port), '--chain-id', chainId, '--silent'];
  if (opts.stateFile) args.push('--state', opts.stateFile, '--state-interval', '10');
  args.push(...(opts.args ?? []));

  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('anvil did not start');
  const watchdog = watchParent(pid);
  const killOnExit = (): void => {
    killQuietly(pid, 'SIGKILL');
    killQuietly(watchdog.pid, 'SIGKILL');
  };
  process.once('exit', killOnExit);

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const url = `http://${HOST}:${port}`;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      // SIGTERM lets anvil dump its --state file; SIGKILL if it hangs.
      killQuietly(pid, 'SIGTERM');
      const timer = setTimeout(() => killQuietly(pid, 'SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
      killQuietly(watchdog.pid, 'SIGKILL');
    })();
    return stopping;
  };

  try {
    await waitUntil(() => isAnswering(url), START_TIMEOUT_MS, {
      check: () => {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`anvil exited (${child.exitCode ?? child.signalCode}): ${stderr.trim()}`);
        }
      },
      what: 'anvil to answer',
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid, stop };
}

/** The native binary behind node_modules/.bin/anvil: spawning it directly leaves no wrapper process to orphan. */
function anvilBinary(): string {
  try {
    const pkg = require.resolve(`@foundry-rs/anvil-${process.platform}-${archName()}/package.json`);
    const bin = join(pkg, '..', 'bin', 'anvil');
    if (existsSync(bin)) return bin;
  } catch {
    // fall through to the npm wrapper
  }
  return join(process.cwd(), 'node_modules', '.bin', 'anvil');
}

function archName(): string {
  return process.arch === 'x64' ? 'amd64' : process.arch;
}

/**
 * A detached shell that kills anvil if this process dies without running its exit handlers
 * (SIGKILL, crash); it ends by itself once anvil is gone.
 */
function watchParent(anvilPid: number): ChildProcess {
  const script =
    `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${anvilPid} 2>/dev/null; do sleep 1; done; ` +
    `kill -9 ${anvilPid} 2>/dev/null`;
  const watchdog = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
  return watchdog;
}

function killQuietly(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

async function isAnswering(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    return res.ok;
  } catch {
    return false;
  }
}
