import { round } from '../../bench/stats';
import { sleep } from './mint-client';

/** One thing that goes wrong: `inject` does it and says what it did. */
export interface Fault {
  name: string;
  inject(): Promise<string>;
  /** The latest point of the run (0..1) it may be planned at, when earlier than the others'. */
  latest?: number;
}

/** A fault and the point of the run's progress (0..1) at which it strikes. */
export interface PlannedFault extends Fault {
  atProgress: number;
}

export interface FaultRecord {
  name: string;
  planned_progress: number;
  /** The progress when it struck (later than planned while an earlier fault still ran). */
  progress: number;
  /** Seconds since the run started. */
  at_s: number;
  duration_ms: number;
  note: string;
  /** What was in flight when it struck (the run's `snapshot`), e.g. an airdrop's carriers. */
  in_flight?: unknown;
}

/** Between these fractions of the run: faults hit a busy service, and leave time to recover. */
const EARLIEST = 0.05;
const LATEST = 0.85;

/** Each fault at its own random point of the run, in the order they will strike. */
export function planFaults(faults: Fault[], random: () => number): PlannedFault[] {
  return faults
    .map((fault) => ({
      ...fault,
      atProgress: EARLIEST + random() * ((fault.latest ?? LATEST) - EARLIEST),
    }))
    .sort((a, b) => a.atProgress - b.atProgress);
}

/**
 * Strikes each fault, one after another, once `progress()` reaches its point. When the work is
 * done early (`finished()`), or progress has not moved for `stallMs` (a fault broke something
 * for good), the rest strike at once: every run has its whole schedule, and then ends.
 */
export async function runFaults(
  plan: PlannedFault[],
  progress: () => number,
  finished: () => boolean,
  options: {
    startedAt: number;
    stallMs: number;
    log: (line: string) => void;
    snapshot?: () => unknown;
  },
): Promise<FaultRecord[]> {
  const { startedAt, stallMs, log, snapshot } = options;
  const records: FaultRecord[] = [];
  let seen = progress();
  let movedAt = performance.now();
  const stalled = () => {
    if (progress() !== seen) {
      seen = progress();
      movedAt = performance.now();
    }
    return performance.now() - movedAt > stallMs;
  };
  for (const fault of plan) {
    while (progress() < fault.atProgress && !finished() && !stalled()) await sleep(100);
    const struck = performance.now();
    const at = progress();
    const inFlight = snapshot?.();
    log(`fault: ${fault.name} at ${(at * 100).toFixed(0)}% of the run`);
    let note: string;
    try {
      note = await fault.inject();
    } catch (error) {
      note = `the fault itself failed: ${(error as Error).message}`;
    }
    records.push({
      name: fault.name,
      planned_progress: round(fault.atProgress, 2),
      progress: round(at, 2),
      at_s: round((struck - startedAt) / 1000, 1),
      duration_ms: Math.round(performance.now() - struck),
      note,
      ...(inFlight === undefined ? {} : { in_flight: inFlight }),
    });
    log(`fault: ${fault.name} done (${note})`);
  }
  return records;
}

/** A seeded generator (mulberry32), so that a schedule can be replayed with CHAOS_SEED. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
