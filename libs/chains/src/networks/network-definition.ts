import type { ConcreteNetwork } from '@app/config';

interface BaseDefinition {
  network: ConcreteNetwork;
  rpcUrl: string;
  currency: { symbol: string; decimals: number };
  /**
   * Identifies the chain itself, not the name: two networks on one node share it, and with it
   * nonces and balances (contract: "Networks").
   */
  chainKey: string;
}

export interface EvmNetworkDefinition extends BaseDefinition {
  family: 'evm';
  chainId: number;
  feeModel: 'eip1559' | 'legacy';
}

export interface SolanaNetworkDefinition extends BaseDefinition {
  family: 'solana';
  wsUrl?: string;
}

export type NetworkDefinition = EvmNetworkDefinition | SolanaNetworkDefinition;
