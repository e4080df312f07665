/** Small helpers shared by the benchmarks. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
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
