/**
 * Where the machine's CPU went during a bench run, from /proc (Linux): the busy share of every
 * core, and the CPU seconds of each kind of process (the service's API and workers, the chains,
 * Postgres, Redis, the bench itself). It answers whether a run was bound by the CPU (no core
 * idle: more workers cannot add throughput) or by waiting (the chain, the pipeline).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** CPU seconds by process kind, and the machine's busy share over the window (0..1). */
export interface CpuUsage {
  busy: number;
  cores: number;
  seconds: Record<string, number>;
}

interface Sample {
  /** Busy and total jiffies of all cores, from the first line of /proc/stat. */
  busyJiffies: number;
  totalJiffies: number;
  /** utime + stime jiffies by pid, with the process's kind. */
  processes: Map<number, { kind: string; jiffies: number }>;
}

/** Linux's USER_HZ: jiffies per second in /proc (100 on every mainstream build). */
const JIFFIES_PER_SECOND = 100;

/** A process as /proc shows it, for a window's classifier to name its kind. */
export interface ProcessStat {
  pid: number;
  parent: number;
  /** The command name (the parenthesised field of /proc/<pid>/stat). */
  name: string;
}

/** Starts a window; `stop()` returns the usage since. Processes that exit inside it are lost. */
export function cpuWindow(): { stop(): CpuUsage } {
  return cpuWindowBy(machineKindOf);
}

/** `cpuWindow`, each process's seconds counted under the kind `kindOf` names. */
export function cpuWindowBy(kindOf: (process: ProcessStat) => string): { stop(): CpuUsage } {
  const first = sample(kindOf);
  return {
    stop() {
      const last = sample(kindOf);
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

/** One line for a table: busy share and the largest consumers. */
export function cpuSummary(usage: CpuUsage): string {
  const top = Object.entries(usage.seconds)
    .filter(([, seconds]) => seconds >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, seconds]) => `${kind} ${seconds}s`)
    .join(', ');
  return `${Math.round(usage.busy * 100)}% of ${usage.cores} cores; ${top}`;
}

function sample(kindOf: (process: ProcessStat) => string): Sample {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const jiffies = fields.map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  const totalJiffies = jiffies.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const busyJiffies = totalJiffies - jiffies[3] - jiffies[4];
  const processes = new Map<number, { kind: string; jiffies: number }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields follow the last ')'.
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const used = Number(after[11]) + Number(after[12]);
      if (used === 0) continue;
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      processes.set(pid, { kind: kindOf({ pid, parent: Number(after[1]), name }), jiffies: used });
    } catch {
      // Exited while being read.
    }
  }
  return { busyJiffies, totalJiffies, processes };
}

function machineKindOf({ pid, name }: ProcessStat): string {
  if (pid === process.pid) return 'bench';
  if (name.startsWith('postgres')) return 'postgres';
  if (name.startsWith('redis')) return 'redis';
  if (name === 'anvil') return 'anvil';
  const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  if (command.includes('apps/api/')) return 'api';
  if (command.includes('apps/worker/')) return 'worker';
  if (command.includes('apps/localnet/')) return 'solana localnet';
  return name;
}
