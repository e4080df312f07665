import {
  arrayOf,
  boolean,
  dateTime,
  integer,
  named,
  nullable,
  oneOf,
  strictObject,
  text,
  viewSchema,
} from '../http/docs/schema';
import type { AccountAssetView, CollectionItemView } from './account-assets.presenter';

const ACCOUNT_ASSET_VIEW = viewSchema<AccountAssetView>(
  'AccountAssetView',
  {
    kind: oneOf(['token', 'collection']),
    network: text,
    mint_address: text,
    name: text,
    symbol: text,
    metadata_uri: nullable(text),
    image: nullable(text),
    owner: text,
    created_at: dateTime,
    tx: nullable(text),
    decimals: integer,
    supply: nullable(text),
    supply_read: nullable(strictObject({ as_of: dateTime, cached: boolean })),
    minted: text,
    max_supply: nullable(text),
    seller_fee: integer,
  },
  ['decimals', 'supply', 'supply_read', 'minted', 'max_supply', 'seller_fee'],
);

const COLLECTION_ITEM_VIEW = viewSchema<CollectionItemView>('CollectionItemView', {
  token_id: text,
  mint_address: text,
  name: text,
  owner: text,
  burned: boolean,
  metadata_uri: nullable(text),
  image: nullable(text),
  created_at: dateTime,
  changes: arrayOf(
    strictObject({
      operation_id: text,
      kind: text,
      status: text,
      tx: nullable(text),
      at: dateTime,
    }),
  ),
});

export const ACCOUNT_ASSETS_PAGE = named(
  'AccountAssetsPage',
  strictObject({ assets: arrayOf(ACCOUNT_ASSET_VIEW), next_cursor: nullable(text) }),
);

export const COLLECTION_ITEMS_PAGE = named(
  'CollectionItemsPage',
  strictObject({ items: arrayOf(COLLECTION_ITEM_VIEW), next_cursor: nullable(text) }),
);
