import { Transaction } from 'ethers';
import type { FeeFields, UnsignedEvmTransaction } from './evm.adapter';

export interface FeePolicy {
  /** Each fee field of a replacement is at least this many percent above the previous one. */
  bumpPercent: number;
  /** No transaction offers more than this per gas (wei). */
  maxFeePerGas: bigint;
}

/**
 * The market's fees raised to a node's minimum tip (a legacy gas price is its tip): an EIP-1559
 * fee cap grows by what the tip grew, so it still covers the base fee it was sized for.
 */
export function withMinimumTip(market: FeeFields, minimumTip: bigint): FeeFields {
  if ('gasPrice' in market) return { gasPrice: max(market.gasPrice, minimumTip) };
  const raise = minimumTip - market.maxPriorityFeePerGas;
  if (raise <= 0n) return market;
  return { maxFeePerGas: market.maxFeePerGas + raise, maxPriorityFeePerGas: minimumTip };
}

/** The fee fields of the moment, held under the network's ceiling. */
export function cappedFees(market: FeeFields, cap: bigint): FeeFields {
  if ('gasPrice' in market) return { gasPrice: min(market.gasPrice, cap) };
  const maxFeePerGas = min(market.maxFeePerGas, cap);
  return { maxFeePerGas, maxPriorityFeePerGas: min(market.maxPriorityFeePerGas, maxFeePerGas) };
}

/**
 * What one gas costs to be mined now: the base fee plus the tip (legacy: the gas price). The
 * EIP-1559 fields come from ethers' getFeeData (max fee = 2 x base fee + tip), which
 * withMinimumTip keeps (it raises both by the same amount), so the base fee is half their gap.
 */
export function landingPricePerGas(market: FeeFields): bigint {
  if ('gasPrice' in market) return market.gasPrice;
  return (market.maxFeePerGas - market.maxPriorityFeePerGas) / 2n + market.maxPriorityFeePerGas;
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
  return asksMore(market, previous) ? bumpedFees(previous, market, policy) : null;
}

/**
 * The fees of a replacement however the market stands: the market's, and never less than the
 * previous version plus the bump. For a version the node will not take back at all (refused, or
 * known and never mined): new bytes at higher fees are what it has not seen. Null when a valid
 * bump would pass the ceiling.
 */
export function bumpedFees(
  previous: FeeFields,
  market: FeeFields,
  policy: FeePolicy,
): FeeFields | null {
  const bumped = (fee: bigint) => (fee * BigInt(100 + policy.bumpPercent) + 99n) / 100n + 1n;
  if ('gasPrice' in previous) {
    const gasPrice = max(asked(market).maxFeePerGas, bumped(previous.gasPrice));
    return gasPrice <= policy.maxFeePerGas ? { gasPrice } : null;
  }
  const offer = asked(market);
  const maxPriorityFeePerGas = max(
    offer.maxPriorityFeePerGas,
    bumped(previous.maxPriorityFeePerGas),
  );
  const maxFeePerGas = max(offer.maxFeePerGas, bumped(previous.maxFeePerGas), maxPriorityFeePerGas);
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

/** Whether the market asks more than a transaction offers, in any fee field. */
function asksMore(market: FeeFields, offered: FeeFields): boolean {
  const ask = asked(market);
  if ('gasPrice' in offered) return ask.maxFeePerGas > offered.gasPrice;
  return (
    ask.maxFeePerGas > offered.maxFeePerGas ||
    ask.maxPriorityFeePerGas > offered.maxPriorityFeePerGas
  );
}

/** The market's fees in EIP-1559 terms (a legacy price is both the cap and the tip). */
function asked(market: FeeFields): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
  return 'gasPrice' in market
    ? { maxFeePerGas: market.gasPrice, maxPriorityFeePerGas: market.gasPrice }
    : market;
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

/**
 * The most a transaction can cost its sender (none of ours carries value): its gas limit at its
 * fee cap. Nodes refuse one the sender's balance does not cover.
 */
export function maxCost(gasLimit: bigint, fees: FeeFields): bigint {
  return gasLimit * ('gasPrice' in fees ? fees.gasPrice : fees.maxFeePerGas);
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
