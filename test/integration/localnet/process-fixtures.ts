import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitUntilDead(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

/** Runs a TypeScript entry point of the repo as its own process, as `npm run` would. */
export function spawnTs(file: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['-r', '@swc-node/register', file], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves with stdout once `pattern` appears in it; rejects if the process exits first. */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}: ${out}${err}`)),
      timeoutMs,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolvePromise(out);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${out}${err}`));
    });
  });
}

/** Direct children of `pid`, read from /proc. */
export async function childPids(pid: number): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) pids.push(Number(entry));
    } catch {
      // the process ended while listing
    }
  }
  return pids;
}
