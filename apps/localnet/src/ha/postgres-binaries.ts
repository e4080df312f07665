import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** CHAOS_PG_BIN, else the newest Debian install (/usr/lib/postgresql/<major>/bin). */
export function postgresBinDir(): string {
  if (process.env.CHAOS_PG_BIN) return process.env.CHAOS_PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!majors.length) throw new Error(`No Postgres under ${root}; set CHAOS_PG_BIN`);
  return join(root, majors[0], 'bin');
}

export function postgresIds(): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('Running as root needs a `postgres` user to own the cluster');
  const [, , uid, gid] = line.split(':');
  return [Number(uid), Number(gid)];
}
