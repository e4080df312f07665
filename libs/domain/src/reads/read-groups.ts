import type { OperationView } from '../operations/operation-view';

/** The view fields of an operation that name an address whose chain state it may change. */
const ADDRESS_FIELDS = ['mint_address', 'collection', 'recipient', 'owner', 'from'] as const;

/**
 * The cache group of the chain reads about one address on one network. EVM addresses in any
 * letter case are one address; Solana's base58 is case-sensitive.
 */
export function groupOf(network: { network: string }, address: string): string {
  return `${network.network}|${address.startsWith('0x') ? address.toLowerCase() : address}`;
}

/** The group of every native balance on a network. */
export function balancesGroup(network: string): string {
  return `${network}|balances`;
}

/** The groups a settled operation may have changed: its addresses, and its network's balances. */
export function settledGroups(view: OperationView): string[] {
  const groups = [balancesGroup(view.network)];
  for (const field of ADDRESS_FIELDS) {
    const address = view[field];
    if (typeof address === 'string' && address) groups.push(groupOf(view, address));
  }
  return groups;
}
