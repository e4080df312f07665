import type { StoredWalletFunds } from '@app/database';

export type WalletFundsEventType = 'wallet.balance_low' | 'wallet.balance_restored';

export interface WalletFundsTransition {
  /** False when a reading made later is stored already: this one is stale and changes nothing. */
  store: boolean;
  /** The event announcing the crossing, when this reading flips the wallet's flag. */
  event: WalletFundsEventType | null;
}

/** Below the threshold is low; a threshold of 0 is never crossed, which turns the watch off. */
export function isLow(balance: bigint, threshold: bigint): boolean {
  return balance < threshold;
}

/** What a balance read at `readAt`, low or not, does to a wallet's stored state. */
export function walletFundsTransition(
  stored: StoredWalletFunds,
  readAt: Date,
  low: boolean,
): WalletFundsTransition {
  if (readAt.getTime() < stored.checkedAt.getTime()) return { store: false, event: null };
  if (low === stored.low) return { store: true, event: null };
  return { store: true, event: low ? 'wallet.balance_low' : 'wallet.balance_restored' };
}
