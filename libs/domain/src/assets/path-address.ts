import type { ChainFamily, Network } from '@app/config';
import { AppError } from '@app/common';
import type { ChainRegistry, NetworkRegistry } from '@app/chains';

export interface PathAddress {
  family: ChainFamily;
  /** Canonical: checksummed on EVM, the base58 of the key on Solana. */
  address: string;
}

const A_FAMILY_ADDRESS: Record<ChainFamily, string> = {
  evm: 'an EVM address',
  solana: 'a Solana address',
};

/**
 * The address in a route's path (`{mint_address}`, `{wallet_address}`), read once for every
 * route. Its format tells its chain family (the two formats cannot overlap). Not an address of
 * either family: 400. When the request names a network, an address of the other family is 400
 * too: no asset of that network can have it, and "not found" would send the caller looking for
 * the wrong thing. Without a network an unknown address stays the route's 404.
 */
export function readPathAddress(
  registries: { chains: ChainRegistry; networks: NetworkRegistry },
  field: string,
  address: string,
  network?: Network,
): PathAddress {
  const parsed = canonicalOfAnyFamily(registries.chains, address);
  if (!parsed) {
    throw AppError.badRequest(`${field} is not a Solana or EVM address.`);
  }
  const family = network && registries.networks.resolve(network).family;
  if (family && family !== parsed.family) {
    throw AppError.badRequest(
      `${field} ${address} is not ${A_FAMILY_ADDRESS[family]} (network ${network}).`,
    );
  }
  return parsed;
}

function canonicalOfAnyFamily(chains: ChainRegistry, address: string): PathAddress | null {
  for (const family of ['evm', 'solana'] as const) {
    const canonical = chains.adapter(family).normalizeAddress(address);
    if (canonical) return { family, address: canonical };
  }
  return null;
}
