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
import { readFileSync } from 'node:fs';
import { cpuWindowBy, type CpuUsage, type ProcessStat } from './cpu-usage';

export interface OwnProcesses {
  api?: number;
  workers?: number[];
  /** A raw script run as a child process of the bench. */
  scripts?: number[];
  /** The database name of this run's service (its Postgres backends). */
  database?: string;
}

/** Starts a window over this run's processes; `stop()` returns the usage since. */
export function stackCpuWindow(own: OwnProcesses): { stop(): CpuUsage } {
  return cpuWindowBy((stat) => kindOf(stat, own));
}

function kindOf({ pid, parent, name }: ProcessStat, own: OwnProcesses): string {
  if (pid === process.pid) return 'bench+solana';
  if (pid === own.api) return 'api';
  if (own.workers?.includes(pid)) return 'worker';
  if (own.scripts?.includes(pid)) return 'raw script';
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
