import { EVM_NETWORKS } from './network-table';

export type EvmNetwork = keyof typeof EVM_NETWORKS;

/** The EVM networks, in the table's order. */
export const EVM_NETWORK_NAMES = Object.keys(EVM_NETWORKS) as EvmNetwork[];

/**
 * Every network name the API accepts, exactly: Solana, `evm` (the deployment's default EVM
 * network) and each row of the EVM network table (the spec's 22, section 2.1).
 */
export const NETWORKS: readonly Network[] = ['solana', 'evm', ...EVM_NETWORK_NAMES];

export type Network = 'solana' | 'evm' | EvmNetwork;

/** A network the service actually runs on: `evm` is an alias resolved from configuration. */
export type ConcreteNetwork = Exclude<Network, 'evm'>;

/** Every network the service can run on: NETWORKS without the `evm` alias. */
export const CONCRETE_NETWORKS: readonly ConcreteNetwork[] = NETWORKS.filter(
  (network): network is ConcreteNetwork => network !== 'evm',
);

export type ChainFamily = 'solana' | 'evm';

export const PROFILES = ['local', 'devnet', 'mainnet'] as const;
export type Profile = (typeof PROFILES)[number];

export function isNetwork(value: unknown): value is Network {
  return typeof value === 'string' && (NETWORKS as readonly string[]).includes(value);
}

export function familyOf(network: ConcreteNetwork): ChainFamily {
  return network === 'solana' ? 'solana' : 'evm';
}
