import type { ConcreteNetwork } from '@app/config';

interface BaseDefinition {
  network: ConcreteNetwork;
  /** The first of `rpcUrls`: the preferred endpoint, and part of `chainKey`. */
  rpcUrl: string;
  /** Every RPC endpoint of the network, in order of preference (failover goes down the list). */
  rpcUrls: string[];
  currency: { symbol: string; decimals: number };
  /**
   * Identifies the chain itself, not the name: two networks on one node share it, and with it
   * nonces and balances (contract: "Networks"). Built from the first RPC URL only, so that it
   * does not change with the endpoint in use, nor when endpoints are added after the first. A
   * public chain's key is pinned on the first start that meets it (ChainKeyPinning): a later
   * change of its first URL, to another provider, keeps it.
   */
  chainKey: string;
  /** The public explorer of the chain; none for local chains. */
  explorer: NetworkExplorer | null;
}

/** Pages are `${baseUrl}/tx/<hash>${query}` and `${baseUrl}/address/<address>${query}`. */
export interface NetworkExplorer {
  baseUrl: string;
  query: string;
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
