import type { Network } from '@app/config';

/** The most entries one airdrop request may carry (contract, "Airdrops"). */
export const AIRDROP_MAX_ENTRIES = 10_000;

/** How many bad entries a refused airdrop names (the rest are counted). */
export const AIRDROP_NAMED_PROBLEMS_MAX = 20;

/** The validated request bodies of the airdrop routes (the API's DTOs fill them). */
export interface TokenAirdropInput {
  network?: Network;
  recipients: { recipient: string; amount: number | string }[];
}

export interface NftAirdropItemInput {
  recipient: string;
  name: string;
  images: string[];
  description?: string;
  attributes?: Record<string, unknown>[];
  seller_fee?: number;
}

export interface NftAirdropInput {
  network?: Network;
  items: NftAirdropItemInput[];
}
