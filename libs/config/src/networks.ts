/** The 22 network names of the spec (2.1), accepted exactly. */
export const NETWORKS = [
  'solana',
  'evm',
  'ethereum',
  'sepolia',
  'base',
  'polygon',
  'bsc',
  'monad',
  'sei',
  'blast',
  'sonic',
  'linea',
  'scroll',
  'mantle',
  'zora',
  'optimism',
  'arbitrum',
  'avalanche',
  'boba',
  'metis',
  'bera',
  'celo',
] as const;

export type Network = (typeof NETWORKS)[number];

/** A network the service actually runs on: `evm` is an alias resolved from configuration. */
export type ConcreteNetwork = Exclude<Network, 'evm'>;

export type EvmNetwork = Exclude<ConcreteNetwork, 'solana'>;

export type ChainFamily = 'solana' | 'evm';

export const PROFILES = ['local', 'devnet', 'mainnet'] as const;
export type Profile = (typeof PROFILES)[number];

export function isNetwork(value: unknown): value is Network {
  return typeof value === 'string' && (NETWORKS as readonly string[]).includes(value);
}

export function familyOf(network: ConcreteNetwork): ChainFamily {
  return network === 'solana' ? 'solana' : 'evm';
}
