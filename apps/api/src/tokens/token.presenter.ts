import { fromBaseUnits, type TokenRead } from '@app/domain';
import { freshnessView, type FreshnessView } from '../http/freshness';

export interface TokenView extends FreshnessView {
  network: string;
  mint_address: string;
  name: string;
  symbol: string;
  decimals: number;
  /** The live supply, in whole tokens; `as_of` says when the chain was read. */
  supply: string;
  owner: string;
  metadata_uri: string | null;
  created_at: string;
}

export function presentToken({ token, supply }: TokenRead): TokenView {
  const decimals = token.decimals ?? 0;
  return {
    network: token.network,
    mint_address: token.address,
    name: token.name,
    symbol: token.symbol,
    decimals,
    supply: fromBaseUnits(supply.value, decimals),
    owner: token.owner,
    metadata_uri: token.metadataUri || null,
    created_at: token.createdAt.toISOString(),
    ...freshnessView(supply),
  };
}
