import { spawn } from 'node:child_process';
import Redis from 'ioredis';
import { freePort } from '@test/support/service-process';

/** A redis-server of a test's own (the chaos run, the event feed suite), which it may flush at will. */
export interface OwnRedis {
  readonly url: string;
  /** FLUSHALL: every queue, job, lock and cache entry of the service is gone at once. */
  flushAll(): Promise<void>;
  stop(): Promise<void>;
}

/** A redis-server on the loopback that persists nothing. */
export const EPHEMERAL_REDIS_ARGS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

/**
 * `redis-server` (from PATH, or CHAOS_REDIS_SERVER) on a free port, nothing persisted. The shared
 * Redis of the machine is never touched: other suites use it at the same time.
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const server = await spawnRedisServer(['--port', String(port), ...EPHEMERAL_REDIS_ARGS]);
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    flushAll: async () => {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await client.connect();
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
    stop: () => server.stop(),
  };
}

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
