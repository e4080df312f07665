import type { AccountAssetRead, CollectionItemRead } from '@app/domain';
import { fromBaseUnits } from '@app/domain';
import type { AssetDetails } from '@app/database';
import { freshnessView, type FreshnessView } from '../http/freshness';

export interface AccountAssetView {
  kind: 'token' | 'collection';
  network: string;
  mint_address: string;
  name: string;
  symbol: string;
  metadata_uri: string | null;
  image: string | null;
  owner: string;
  created_at: string;
  /** The transaction that created it. */
  tx: string | null;
  /** Tokens. */
  decimals?: number;
  /** Tokens: the live supply in whole tokens (null when the chain did not answer). */
  supply?: string | null;
  supply_read?: FreshnessView | null;
  /** Collections. */
  minted?: string;
  max_supply?: string | null;
  seller_fee?: number;
}

export interface CollectionItemView {
  token_id: string;
  mint_address: string;
  name: string;
  /** The holder our operations recorded (GET /nfts/{collection}?token_id= reads the chain's). */
  owner: string;
  burned: boolean;
  metadata_uri: string | null;
  image: string | null;
  created_at: string;
  /** Its mint, transfers and burn, oldest first. */
  changes: { operation_id: string; kind: string; status: string; tx: string | null; at: string }[];
}

export function presentAccountAsset({ asset, supply }: AccountAssetRead): AccountAssetView {
  const common = {
    kind: asset.kind,
    network: asset.network,
    mint_address: asset.address,
    name: asset.name,
    symbol: asset.symbol,
    metadata_uri: asset.metadataUri || null,
    image: imageOf(asset.details),
    owner: asset.owner,
    created_at: asset.createdAt.toISOString(),
    tx: asset.txHash,
  };
  if (asset.kind === 'token') {
    const decimals = asset.decimals ?? 0;
    return {
      ...common,
      decimals,
      supply: supply ? fromBaseUnits(supply.value, decimals) : null,
      supply_read: supply ? freshnessView(supply) : null,
    };
  }
  return {
    ...common,
    minted: String(asset.minted),
    max_supply: asset.details.max_supply ?? null,
    seller_fee: asset.details.seller_fee ?? 0,
  };
}

export function presentCollectionItem({ item, changes }: CollectionItemRead): CollectionItemView {
  return {
    token_id: item.tokenId,
    mint_address: item.mintAddress,
    name: item.name,
    owner: item.owner,
    burned: item.burned,
    metadata_uri: item.metadataUri || null,
    image: imageOf(item.details),
    created_at: item.createdAt.toISOString(),
    changes: changes.map((change) => ({
      operation_id: change.operationId,
      kind: change.kind,
      status: change.status,
      tx: change.txHash,
      at: change.createdAt.toISOString(),
    })),
  };
}

function imageOf(details: AssetDetails): string | null {
  return details.images?.[0] ?? details.image ?? null;
}
