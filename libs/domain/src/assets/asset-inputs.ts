import type { Network } from '@app/config';

/** The validated request bodies, as the use cases take them (the API's DTOs fill them). */
export interface CreateTokenInput {
  network: Network;
  name: string;
  symbol: string;
  amount: number | string;
  decimals?: number;
  description?: string;
  image?: string;
  website?: string;
  seller_fee?: number;
}

export interface TokenAmountInput {
  amount: number | string;
  recipient?: string;
  network?: Network;
}

export interface CreateCollectionInput {
  network: Network;
  name: string;
  symbol?: string;
  description: string;
  images: string[];
  website?: string;
  attributes?: Record<string, unknown>[];
  seller_fee?: number;
  max_supply?: number;
  uploadMetadata?: boolean;
}

export interface MintNftInput {
  network?: Network;
  name: string;
  images: string[];
  description?: string;
  symbol?: string;
  website?: string;
  seller_fee?: number;
  attributes?: Record<string, unknown>[];
  recipient?: string;
}

export interface NftItemInput {
  network?: Network;
  token_id?: string;
  recipient?: string;
}
