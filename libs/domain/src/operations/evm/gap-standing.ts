/** Where a wallet's gap starts, and since when it has started there. */
export interface GapStanding {
  nonce: bigint;
  since: number;
}

/**
 * Whether the gap now starting at `nonce` has stood there for `replaceAfterMs`, and the standing
 * to keep. The clock starts again whenever the gap moves, and after each time it stood too long
 * (its transaction is then signed again, and that version gets its own time).
 */
export function judgeGapStanding(
  previous: GapStanding | undefined,
  nonce: bigint,
  now: number,
  replaceAfterMs: number,
): { tooLong: boolean; standing: GapStanding } {
  if (previous?.nonce !== nonce) return { tooLong: false, standing: { nonce, since: now } };
  if (now - previous.since < replaceAfterMs) return { tooLong: false, standing: previous };
  return { tooLong: true, standing: { nonce, since: now } };
}
