import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postgresBinDir, postgresIds } from '@app/localnet';
import { freePort } from '@test/support/service-process';

const run = promisify(execFile);

/** A Postgres cluster of the chaos run's own, which it may stop and start at will. */
export interface OwnPostgres {
  /** The server's `postgres` database (startTestServices makes a fresh database beside it). */
  readonly url: string;
  /** A real outage: a fast shutdown (every connection cut), `downMs` without a server, a start. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * initdb + pg_ctl into a temporary directory (removed by `stop`) on a free port, trust auth,
 * listening on 127.0.0.1 only. The shared Postgres of the machine is never touched: other suites
 * run against it at the same time. initdb refuses to run as root, so as root the cluster belongs
 * to the `postgres` user.
 */
export async function startOwnPostgres(
  settings: Record<string, string> = {},
): Promise<OwnPostgres> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'ais-chaos-pg-'));
  const dataDir = join(dir, 'pgdata');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, ...postgresIds());
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args])
      : run(join(bin, tool), args);
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  const start = () =>
    pg('pg_ctl', ['-D', dataDir, '-l', join(dir, 'postgres.log'), '-o', options, '-w', 'start']);
  const stop = (mode: 'fast' | 'immediate') =>
    pg('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);

  const stopAndRemove = async () => {
    if (existsSync(join(dataDir, 'postmaster.pid'))) await stop('immediate');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pg('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await start();
  } catch (error) {
    await stopAndRemove().catch(() => undefined);
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: async (downMs) => {
      await stop('fast');
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    stop: stopAndRemove,
  };
}
