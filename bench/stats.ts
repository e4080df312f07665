/** Small helpers shared by the benchmarks: every benchmark's percentiles mean the same. */

/** The nearest-rank percentile: the smallest value with at least p% of the values at or below it. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Runs `count` tasks with at most `concurrency` in flight; returns each task's duration (ms). */
export async function runConcurrently(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<number[]> {
  const durations: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const started = performance.now();
        await task(index);
        durations.push(performance.now() - started);
      }
    }),
  );
  return durations;
}

/**
 * `measured / baseline` against a target: met on the exact ratio, never on a rounded one (1.995
 * shown as 2.00 is not 2), shown to three digits so that a miss never reads as the target.
 */
export function ratioAgainst(
  measured: number,
  baseline: number,
  target: number,
): { ratio: number; met: boolean } {
  const exact = measured / baseline;
  return { ratio: Math.floor(exact * 1000) / 1000, met: exact >= target };
}

/** JSON-RPC calls by method, a mint (BENCH_RPC_CALLS=1). */
export function callsPerMint(calls: { method: string }[], mints: number): Record<string, number> {
  const counts = new Map<string, number>();
  for (const { method } of calls) counts.set(method, (counts.get(method) ?? 0) + 1);
  return Object.fromEntries([...counts].map(([method, n]) => [method, round(n / mints, 3)]));
}
