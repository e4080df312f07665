import { formatUnits } from 'ethers';
import type { CreatedWallet, WalletRead } from '@app/domain';
import { freshnessView, type FreshnessView } from '../http/freshness';

export interface WalletView extends FreshnessView {
  network: string;
  public_key: string;
  balance: string;
  balance_base_units: string;
  currency: string;
  managed: boolean;
  created_at?: string;
}

export function presentWallet(read: WalletRead): WalletView {
  const { currency } = read.network;
  return {
    network: read.network.network,
    public_key: read.address,
    balance: formatUnits(read.balance.value, currency.decimals),
    balance_base_units: read.balance.value.toString(),
    currency: currency.symbol,
    managed: read.managed,
    ...(read.createdAt ? { created_at: read.createdAt.toISOString() } : {}),
    ...freshnessView(read.balance),
  };
}

export interface CreatedWalletView {
  network: string;
  public_key: string;
  /** Returned in this response only: never stored, logged or queued. */
  secret_key: string;
  created_at: string;
}

export function presentCreatedWallet(wallet: CreatedWallet): CreatedWalletView {
  return {
    network: wallet.network,
    public_key: wallet.publicKey,
    secret_key: wallet.secretKey,
    created_at: wallet.createdAt.toISOString(),
  };
}
