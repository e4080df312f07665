import { formatUnits } from 'ethers';
import { AppError } from '@app/common';
import type { NetworkDefinition } from './networks/network-definition';

/** A managed wallet short of what a write costs, in the chain's base units. */
export interface FundsShortfall {
  network: Pick<NetworkDefinition, 'network' | 'currency'>;
  address: string;
  /** What the wallet holds (what its pending transactions leave, where the node tells). */
  balance: bigint;
  /** Roughly what the write costs at the fees of the moment (at most; usually less is spent). */
  needed: bigint;
}

/**
 * Before anything is signed: the write fails at once, as a 409 naming the wallet, its balance
 * and roughly what is needed (contract: "Wallet funds").
 */
export function insufficientFunds(shortfall: FundsShortfall): AppError {
  return new AppError('INSUFFICIENT_FUNDS', `Insufficient funds: ${shortfallText(shortfall)}.`);
}

/** Once signed: what the operation waits for, as its `retries.last_error`. */
export function awaitingFundsReason(shortfall: FundsShortfall): string {
  return `insufficient funds: ${shortfallText(shortfall)}.`;
}

/** A signed operation whose wallet was not funded in time: `reason` is its awaitingFundsReason. */
export function unfundedPastDeadline(reason: string): AppError {
  return new AppError(
    'INSUFFICIENT_FUNDS',
    `${reason} It was not funded within the operation's deadline; nothing was sent again.`,
  );
}

function shortfallText({ network, address, balance, needed }: FundsShortfall): string {
  const amount = (value: bigint) =>
    `${formatUnits(value, network.currency.decimals)} ${network.currency.symbol}`;
  const need = `this write needs about ${amount(needed)}`;
  // Read after the node's refusal: funds may have come back meanwhile.
  return balance >= needed
    ? `the node refused it for lack of funds in wallet ${address} on ${network.network}, which holds ${amount(balance)} now; ${need}`
    : `wallet ${address} on ${network.network} holds ${amount(balance)}; ${need}`;
}
