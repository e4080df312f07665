/** What an in-flight operation brings to a gap: the nonce it holds and its stored bytes. */
export interface InFlightSend {
  nonce: bigint | null;
  signedTx?: string | null;
}

/** One nonce of a gap, sent again: its operation's stored bytes, or a zero-value filler. */
export type GapSend = { nonce: bigint; signedTx: string } | { nonce: bigint; filler: true };

/**
 * The sends that close the gap from `from` to `to` (exclusive), in nonce order, or null when
 * nothing of the wallet is in flight (the node forgot its history; there is nothing to resend).
 * At most `maxFillers` nonces no operation holds are filled; the plan stops at the next one,
 * since every later nonce would wait behind it anyway.
 */
export function planGapSends(
  from: bigint,
  to: bigint,
  inFlight: readonly InFlightSend[],
  maxFillers: number,
): GapSend[] | null {
  if (inFlight.length === 0) return null;
  const storedByNonce = new Map(inFlight.map((operation) => [operation.nonce, operation.signedTx]));
  const sends: GapSend[] = [];
  let fillers = 0;
  for (let nonce = from; nonce < to; nonce++) {
    const signedTx = storedByNonce.get(nonce);
    if (signedTx) sends.push({ nonce, signedTx });
    else if (fillers++ < maxFillers) sends.push({ nonce, filler: true });
    else break;
  }
  return sends;
}
