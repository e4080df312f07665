/**
 * How a wallet's recorded next nonce (the ledger's) is healed against the chain's pending count:
 * - `in-step`: no ledger row yet, or the two agree: the chain's count is next;
 * - `up`: the chain is ahead (the wallet was used elsewhere): jump to the chain's count;
 * - `down`: the ledger is ahead: the chain misses nonces `from` to `to` (exclusive) that we
 *   numbered, and the gap is closed before going on (see nextAfterGap).
 */
export type NonceHealing =
  | { kind: 'in-step'; next: bigint }
  | { kind: 'up'; recorded: bigint; next: bigint }
  | { kind: 'down'; from: bigint; to: bigint };

export function planNonceHealing(recorded: bigint | null, onChain: bigint): NonceHealing {
  if (recorded === null || recorded === onChain) return { kind: 'in-step', next: onChain };
  if (recorded < onChain) return { kind: 'up', recorded, next: onChain };
  return { kind: 'down', from: onChain, to: recorded };
}

/**
 * The next nonce once a gap below the ledger was closed: the ledger's, unless nothing of the
 * wallet was in flight at all. Then the chain forgot its transactions (a reset node), and
 * numbering goes on from the chain's count.
 */
export function nextAfterGap(
  gap: Extract<NonceHealing, { kind: 'down' }>,
  anyInFlight: boolean,
): bigint {
  return anyInFlight ? gap.to : gap.from;
}
