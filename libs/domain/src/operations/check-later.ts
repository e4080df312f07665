import type { InclusionWatch } from '@app/chains';

/**
 * Not a failure: the operation is in flight and its transaction has no verdict yet. The check
 * ends its round (a job never waits on a chain for more than CHECK_ROUND_MS) and its job is
 * parked, not counted as an attempt and holding no worker slot, until `delayMs` has passed or
 * `wake` fires, whichever comes first. Whatever its timers need between rounds (when its bytes
 * were last sent, when it was last re-priced) stays with the lifecycle (`RoundMemory`); a worker
 * that does not have it starts them afresh, which only sends the same bytes once more.
 */
export class CheckLater extends Error {
  constructor(
    reason: string,
    readonly delayMs: number,
    /** The block scan's watch that wakes it sooner: a version mined, a height reached. */
    readonly wake?: InclusionWatch,
  ) {
    super(reason);
    this.name = 'CheckLater';
  }
}

/** The longest one round of a check holds its job before parking it. */
export const CHECK_ROUND_MS = 3_000;
