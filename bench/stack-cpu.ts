/**
 * Where the CPU went during a bench run, counting only this bench's own processes: as
 * cpu-usage.ts, from /proc, but on a machine where others run test suites meanwhile their API,
 * worker, anvil and Postgres backends are not this run's. This run's are: the bench process
 * itself (with the in-process Solana localnet and the chains' proxies), the anvil it started
 * (its child), the API and worker pids given, the raw script's child pids given, and the
 * Postgres backends connected to this run's database (their command line names it). Postgres's
 * background processes and Redis are shared with the others and shown apart; everything else
 * on the machine is `others` (the noise of the run).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { CpuUsage } from './cpu-usage';

export interface OwnProcesses {
  api?: number;
  workers?: number[];
  /** A raw script run as a child process of the bench. */
  scripts?: number[];
  /** The database name of this run's service (its Postgres backends). */
  database?: string;
}

interface Sample {
  busyJiffies: number;
  totalJiffies: number;
  processes: Map<number, { kind: string; jiffies: number }>;
}

/** Linux's USER_HZ (100 on every mainstream build). */
const JIFFIES_PER_SECOND = 100;

/** Starts a window over this run's processes; `stop()` returns the usage since. */
export function stackCpuWindow(own: OwnProcesses): { stop(): CpuUsage } {
  const first = sample(own);
  return {
    stop() {
      const last = sample(own);
      const seconds: Record<string, number> = {};
      for (const [pid, { kind, jiffies }] of last.processes) {
        const before = first.processes.get(pid)?.jiffies ?? 0;
        seconds[kind] = (seconds[kind] ?? 0) + (jiffies - before) / JIFFIES_PER_SECOND;
      }
      for (const kind of Object.keys(seconds)) seconds[kind] = Math.round(seconds[kind] * 10) / 10;
      const total = last.totalJiffies - first.totalJiffies;
      return {
        busy:
          total > 0 ? Math.round(((last.busyJiffies - first.busyJiffies) / total) * 100) / 100 : 0,
        cores: availableParallelism(),
        seconds,
      };
    },
  };
}

function sample(own: OwnProcesses): Sample {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const jiffies = fields.map(Number);
  const totalJiffies = jiffies.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const busyJiffies = totalJiffies - jiffies[3] - jiffies[4];
  const processes = new Map<number, { kind: string; jiffies: number }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const used = Number(after[11]) + Number(after[12]);
      if (used === 0) continue;
      const parent = Number(after[1]);
      processes.set(pid, { kind: kindOf(pid, parent, stat, own), jiffies: used });
    } catch {
      // Exited while being read.
    }
  }
  return { busyJiffies, totalJiffies, processes };
}

function kindOf(pid: number, parent: number, stat: string, own: OwnProcesses): string {
  if (pid === process.pid) return 'bench+solana';
  if (pid === own.api) return 'api';
  if (own.workers?.includes(pid)) return 'worker';
  if (own.scripts?.includes(pid)) return 'raw script';
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  if (name === 'anvil') return parent === process.pid ? 'anvil' : 'others';
  if (name.startsWith('redis')) return 'redis (shared)';
  if (name.startsWith('postgres')) {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (own.database && command.includes(own.database)) return 'postgres';
    // A backend of another database is another run's; the rest (WAL writer, checkpointer...) is shared.
    return /\(\d+\)|\[local\]/.test(command) ? 'others' : 'postgres (shared)';
  }
  return 'others';
}
