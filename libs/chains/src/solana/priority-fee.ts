import type { PublicKey, TransactionInstruction } from '@solana/web3.js';

/** getRecentPrioritizationFees takes at most this many accounts. */
export const MAX_FEE_ACCOUNTS = 128;

export interface PriorityFeePolicy {
  /** The least compute-unit price paid, in micro-lamports (also what an idle network gets). */
  floorMicroLamports: number;
  /** The most paid, however high the network's recent fees. */
  maxMicroLamports: number;
  /** Which percentile of the recent per-slot fees to match, 1..100. */
  percentile: number;
}

/**
 * The compute-unit price (micro-lamports) to pay, from the per-slot fees the node reports for
 * the transaction's writable accounts: the `percentile`-th of them (nearest rank), raised to the
 * floor and held to the cap.
 *
 * Every reported slot counts, zeros included. A slot whose writers of these accounts paid
 * nothing is evidence that nothing was needed to land there; dropping the zeros would let a
 * single paying slot among 150 set the price (the median of one value), so a quiet network
 * would cost as much as a busy one. With zeros counted, the 75th percentile asks what three
 * slots in four required, and rises only when contention is common.
 */
export function priorityFeeFrom(recentFees: readonly number[], policy: PriorityFeePolicy): number {
  const level = nearestRank(
    recentFees.filter((fee) => Number.isFinite(fee) && fee >= 0),
    policy.percentile,
  );
  return Math.min(policy.maxMicroLamports, Math.max(policy.floorMicroLamports, level));
}

/** The nearest-rank percentile: the smallest value at least p% of the values do not exceed. */
function nearestRank(values: number[], percentile: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((percentile / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * The accounts a transaction write-locks (fee payer first), as getRecentPrioritizationFees takes
 * them: the fee it reports for a slot is what landing there while locking all of them took.
 */
export function writableAccounts(
  payer: PublicKey,
  instructions: readonly TransactionInstruction[],
): string[] {
  const accounts = new Set([payer.toBase58()]);
  for (const ix of instructions) {
    for (const meta of ix.keys) if (meta.isWritable) accounts.add(meta.pubkey.toBase58());
  }
  return [...accounts].slice(0, MAX_FEE_ACCOUNTS);
}
