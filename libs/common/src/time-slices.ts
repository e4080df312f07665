import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Cooperative time slicing for a loop of CPU work on a busy event loop. `await` of a resolved
 * promise runs the next step at once (a microtask), so a loop that signs 200 transactions kept
 * every I/O callback of the process waiting for its whole run, 100-200 ms under a flood: another
 * tenant's query result or RPC answer among them. `slice()` lets I/O callbacks run once the loop
 * has had the event loop for `sliceMs` since its last turn.
 */
export class TimeSlices {
  private sliceStart: number;

  constructor(
    private readonly sliceMs: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.sliceStart = now();
  }

  /** Whether the current slice is used up (then `slice()` yields). */
  usedUp(): boolean {
    return this.now() - this.sliceStart >= this.sliceMs;
  }

  /** Yields to the event loop's pending callbacks if this slice is used up. */
  async slice(): Promise<void> {
    if (!this.usedUp()) return;
    await nextTurn();
    this.sliceStart = this.now();
  }
}
