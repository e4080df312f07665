import {
  arrayOf,
  boolean,
  dateTime,
  freeObject,
  nullable,
  text,
  viewSchema,
} from '../http/docs/schema';
import type { CollectionView, ItemView } from './nft.presenter';

const details = {
  description: text,
  images: arrayOf(text),
  attributes: arrayOf(freeObject),
  seller_fee: { type: 'integer', description: 'Royalty in basis points' },
} as const;

export const COLLECTION_VIEW = viewSchema<CollectionView>(
  'CollectionView',
  {
    type: { type: 'string', enum: ['collection'] },
    network: text,
    mint_address: text,
    name: text,
    symbol: text,
    ...details,
    website: text,
    max_supply: nullable(text),
    minted: text,
    metadata_uri: nullable(text),
    owner: text,
    created_at: dateTime,
  },
  ['description', 'images', 'website', 'attributes'],
);

export const ITEM_VIEW = viewSchema<ItemView>(
  'ItemView',
  {
    type: { type: 'string', enum: ['item'] },
    network: text,
    collection: text,
    mint_address: text,
    token_id: text,
    owner: nullable({ type: 'string', description: 'Null once burned' }),
    burned: boolean,
    metadata_uri: nullable(text),
    name: text,
    ...details,
    created_at: dateTime,
    as_of: dateTime,
    cached: boolean,
  },
  ['description', 'images', 'attributes', 'as_of', 'cached'],
);

export const NFT_VIEW = { oneOf: [COLLECTION_VIEW, ITEM_VIEW] };
