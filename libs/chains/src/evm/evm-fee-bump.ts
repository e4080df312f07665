import { Transaction } from 'ethers';
import type { FeeFields, UnsignedEvmTransaction } from './evm.adapter';

export interface FeePolicy {
  /** Each fee field of a replacement is at least this many percent above the previous one. */
  bumpPercent: number;
  /** No transaction offers more than this per gas (wei). */
  maxFeePerGas: bigint;
}

/** The fee fields of the moment, held under the network's ceiling. */
export function cappedFees(market: FeeFields, cap: bigint): FeeFields {
  if ('gasPrice' in market) return { gasPrice: min(market.gasPrice, cap) };
  const maxFeePerGas = min(market.maxFeePerGas, cap);
  return { maxFeePerGas, maxPriorityFeePerGas: min(market.maxPriorityFeePerGas, maxFeePerGas) };
}

/**
 * The fees of a transaction that replaces a stuck one (same nonce): what the market asks now,
 * and never less than the previous version plus the bump every node requires of a replacement.
 * Null when no replacement is called for: the previous version already offers what the market
 * asks (it waits for another reason, and re-sending its bytes is enough), or a valid bump would
 * pass the ceiling.
 */
export function replacementFees(
  previous: FeeFields,
  market: FeeFields,
  policy: FeePolicy,
): FeeFields | null {
  const bumped = (fee: bigint) => (fee * BigInt(100 + policy.bumpPercent) + 99n) / 100n + 1n;
  if ('gasPrice' in previous) {
    const asked = 'gasPrice' in market ? market.gasPrice : market.maxFeePerGas;
    if (asked <= previous.gasPrice) return null;
    const gasPrice = max(asked, bumped(previous.gasPrice));
    return gasPrice <= policy.maxFeePerGas ? { gasPrice } : null;
  }
  const asked =
    'gasPrice' in market
      ? { maxFeePerGas: market.gasPrice, maxPriorityFeePerGas: market.gasPrice }
      : market;
  if (
    asked.maxFeePerGas <= previous.maxFeePerGas &&
    asked.maxPriorityFeePerGas <= previous.maxPriorityFeePerGas
  ) {
    return null;
  }
  const maxPriorityFeePerGas = max(
    asked.maxPriorityFeePerGas,
    bumped(previous.maxPriorityFeePerGas),
  );
  const maxFeePerGas = max(asked.maxFeePerGas, bumped(previous.maxFeePerGas), maxPriorityFeePerGas);
  if (maxFeePerGas > policy.maxFeePerGas) {
    // The ceiling still leaves room for a valid bump: offer the ceiling.
    const ceiling = policy.maxFeePerGas;
    const priority = min(maxPriorityFeePerGas, ceiling);
    if (ceiling < bumped(previous.maxFeePerGas) || priority < bumped(previous.maxPriorityFeePerGas))
      return null;
    return { maxFeePerGas: ceiling, maxPriorityFeePerGas: priority };
  }
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** What a signed transaction asks of the chain, to sign it again with other fees. */
export function decodeSigned(signedTx: string): {
  unsigned: UnsignedEvmTransaction;
  fees: FeeFields;
} {
  const tx = Transaction.from(signedTx);
  const fees: FeeFields =
    tx.type === 2
      ? { maxFeePerGas: tx.maxFeePerGas ?? 0n, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n }
      : { gasPrice: tx.gasPrice ?? 0n };
  return {
    unsigned: { to: tx.to, data: tx.data, gasLimit: tx.gasLimit, nonce: BigInt(tx.nonce) },
    fees,
  };
}

/** Fee fields as JSON (decimal strings), as stored with each signed transaction. */
export function feesJson(fees: FeeFields): Record<string, string> {
  return Object.fromEntries(Object.entries(fees).map(([name, value]) => [name, String(value)]));
}

function max(...values: bigint[]): bigint {
  return values.reduce((a, b) => (a > b ? a : b));
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
