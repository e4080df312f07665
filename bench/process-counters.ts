import { readFileSync, readdirSync } from 'node:fs';

/**
 * CPU and scheduling counters of the processes whose command line matches, summed (from /proc):
 * to tell where a process kind's CPU goes when more of them share the machine.
 */
export interface ProcessCounters {
  userSeconds: number;
  systemSeconds: number;
  /** User + system of the processes' main threads (JavaScript), the rest being V8's and libuv's. */
  mainThreadSeconds: number;
  /** Voluntary (waits) and involuntary (preemptions) context switches. */
  contextSwitches: number;
}

const JIFFIES_PER_SECOND = 100;

export function processCounters(commandLine: RegExp): ProcessCounters {
  const total: ProcessCounters = {
    userSeconds: 0,
    systemSeconds: 0,
    mainThreadSeconds: 0,
    contextSwitches: 0,
  };
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!commandLine.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue;
      const [user, system] = cpuJiffies(`/proc/${pid}/stat`);
      const [mainUser, mainSystem] = cpuJiffies(`/proc/${pid}/task/${pid}/stat`);
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      total.userSeconds += user / JIFFIES_PER_SECOND;
      total.systemSeconds += system / JIFFIES_PER_SECOND;
      total.mainThreadSeconds += (mainUser + mainSystem) / JIFFIES_PER_SECOND;
      for (const match of status.matchAll(/voluntary_ctxt_switches:\s+(\d+)/g)) {
        total.contextSwitches += Number(match[1]);
      }
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

export function countersSince(before: ProcessCounters, after: ProcessCounters): ProcessCounters {
  return {
    userSeconds: after.userSeconds - before.userSeconds,
    systemSeconds: after.systemSeconds - before.systemSeconds,
    mainThreadSeconds: after.mainThreadSeconds - before.mainThreadSeconds,
    contextSwitches: after.contextSwitches - before.contextSwitches,
  };
}

/** utime and stime of a /proc stat file, in jiffies (the fields after the command's ')'). */
function cpuJiffies(path: string): [number, number] {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]), Number(fields[12])];
}
