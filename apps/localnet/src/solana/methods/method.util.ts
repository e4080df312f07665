import type { Ledger } from '../ledger';
import type { MintDecimals } from '../account.encoder';
import { readMintDecimals } from '../token.layout';

export const API_VERSION = '2.2.0';

export interface RpcResponse<T> {
  context: { apiVersion: string; slot: number };
  value: T;
}

export function withContext<T>(ledger: Ledger, value: T): RpcResponse<T> {
  return { context: { apiVersion: API_VERSION, slot: ledger.slot }, value };
}

export function mintDecimalsFrom(ledger: Ledger): MintDecimals {
  const cache = new Map<string, number | undefined>();
  return (mint) => {
    if (!cache.has(mint)) {
      const account = ledger.getAccount(mint);
      cache.set(mint, account ? readMintDecimals(account.data) : undefined);
    }
    return cache.get(mint);
  };
}
