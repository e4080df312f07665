import type { CollectionRead, ItemRead } from '@app/domain';
import { freshnessView, type FreshnessView } from '../http/freshness';

export interface CollectionView {
  type: 'collection';
  network: string;
  mint_address: string;
  name: string;
  symbol: string;
  description?: string;
  images?: string[];
  website?: string;
  attributes?: Record<string, unknown>[];
  seller_fee: number;
  max_supply: string | null;
  minted: string;
  metadata_uri: string | null;
  owner: string;
  created_at: string;
}

export interface ItemView extends Partial<FreshnessView> {
  type: 'item';
  network: string;
  collection: string;
  mint_address: string;
  token_id: string;
  owner: string | null;
  burned: boolean;
  metadata_uri: string | null;
  name: string;
  description?: string;
  images?: string[];
  attributes?: Record<string, unknown>[];
  /** The item's royalty (basis points): its own, else the collection's. */
  seller_fee: number;
  created_at: string;
}

export function presentNft(read: CollectionRead | ItemRead): CollectionView | ItemView {
  return read.type === 'collection' ? presentCollection(read) : presentItem(read);
}

function presentCollection({ collection, minted }: CollectionRead): CollectionView {
  return {
    type: 'collection',
    network: collection.network,
    mint_address: collection.address,
    name: collection.name,
    symbol: collection.symbol,
    description: collection.details.description,
    images: collection.details.images,
    website: collection.details.website,
    attributes: collection.details.attributes,
    seller_fee: collection.details.seller_fee ?? 0,
    max_supply: collection.details.max_supply ?? null,
    minted: String(minted),
    metadata_uri: collection.metadataUri || null,
    owner: collection.owner,
    created_at: collection.createdAt.toISOString(),
  };
}

/** An item's owner is the chain's (as of `as_of`) unless we burned it: then null, no chain read. */
function presentItem({ collection, item, burned, owner, chain }: ItemRead): ItemView {
  return {
    type: 'item',
    network: collection.network,
    collection: collection.address,
    mint_address: item.mintAddress,
    token_id: item.tokenId,
    owner,
    burned,
    metadata_uri: item.metadataUri || null,
    name: item.name,
    description: item.details.description,
    images: item.details.images,
    attributes: item.details.attributes,
    // Items minted before per-item royalties stored none: theirs is the collection's.
    seller_fee: item.details.seller_fee ?? collection.details.seller_fee ?? 0,
    created_at: item.createdAt.toISOString(),
    ...(chain ? freshnessView(chain) : {}),
  };
}
