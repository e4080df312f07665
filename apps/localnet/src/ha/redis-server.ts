import { spawn } from 'node:child_process';

/** A redis-server on the loopback that persists nothing. */
export const EPHEMERAL_REDIS_ARGS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

/** A redis-server process (from PATH, or CHAOS_REDIS_SERVER) once it is ready. */
export interface RedisServerProcess {
  /** SIGKILL: gone at once, as a crashed node. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `redis-server` with these arguments and waits until it accepts connections. */
export async function spawnRedisServer(args: string[]): Promise<RedisServerProcess> {
  const child = spawn(process.env.CHAOS_REDIS_SERVER ?? 'redis-server', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server not ready after 10 s:\n${output}`));
    }, 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/Ready to accept connections|Sentinel ID is/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  return { kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}
