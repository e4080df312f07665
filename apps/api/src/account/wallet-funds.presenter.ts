import { formatUnits } from 'ethers';
import { isLow, operationsLeft } from '@app/domain';

export interface WalletFundsView {
  /** Below the network's WALLET_LOW_BALANCE_<NETWORK>; null when the balance is unknown. */
  low_balance: boolean | null;
  /** Native units, decimal string. */
  low_balance_threshold: string;
  /** Typical operations the balance pays for, rounded down; null when it is unknown. */
  estimated_operations_left: number | null;
}

/** What a managed wallet's balance means for the account: low or not, operations left. */
export function presentWalletFunds(
  balance: bigint | null,
  threshold: bigint,
  typicalCost: bigint | null,
  decimals: number,
): WalletFundsView {
  return {
    low_balance: balance === null ? null : isLow(balance, threshold),
    low_balance_threshold: formatUnits(threshold, decimals),
    estimated_operations_left: operationsLeft(balance, typicalCost),
  };
}
