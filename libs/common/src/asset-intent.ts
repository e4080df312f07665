/**
 * What an operation asks of a chain, in chain-neutral terms: the vocabulary shared by the use
 * cases that create operations and the adapters that carry them out. Amounts are base units as
 * decimal strings (JSON-safe); addresses are canonical.
 */
export type AssetIntent =
  | {
      kind: 'token.create';
      name: string;
      symbol: string;
      decimals: number;
      initialSupply: string;
      metadataUri: string;
    }
  // `decimals`: Solana only (transferChecked, burnChecked and mintToChecked carry them).
  | { kind: 'token.mint'; asset: string; recipient: string; amount: string; decimals?: number }
  | { kind: 'token.burn'; asset: string; amount: string; decimals?: number }
  | {
      kind: 'token.transfer';
      asset: string;
      recipient: string;
      amount: string;
      decimals?: number;
    }
  | {
      kind: 'nft.create';
      name: string;
      symbol: string;
      metadataUri: string;
      /** 0 = unlimited */
      maxSupply: string;
      sellerFeeBps: number;
    }
  | {
      kind: 'nft.mint';
      collection: string;
      recipient: string;
      name: string;
      metadataUri: string;
      /** Solana only: the item's on-chain metadata symbol. */
      symbol?: string;
      /**
       * The item's own royalty in basis points; absent, the collection's default applies (EVM:
       * ERC-2981 falls back on chain). A Solana mint carries its own metadata, so there the use
       * case fills in the collection's fee when the item has none.
       */
      sellerFeeBps?: number;
    }
  /** On Solana `tokenId` is the item's mint address. */
  | { kind: 'nft.transfer'; collection: string; tokenId: string; recipient: string }
  | { kind: 'nft.burn'; collection: string; tokenId: string };

export type OperationKind = AssetIntent['kind'];

export const OPERATION_KINDS: readonly OperationKind[] = [
  'token.create',
  'token.mint',
  'token.burn',
  'token.transfer',
  'nft.create',
  'nft.mint',
  'nft.transfer',
  'nft.burn',
];

/** What a confirmed operation produced that only the chain could tell. */
export interface AssetOutcome {
  /** token.create / nft.create: the new contract or mint; nft.mint: the item's mint (Solana). */
  mintAddress?: string;
  /** nft.mint: the new item's id. */
  tokenId?: string;
}

export type OperationStatus = 'queued' | 'signed' | 'submitted' | 'confirmed' | 'failed';

export const UNSETTLED_STATUSES: readonly OperationStatus[] = ['queued', 'signed', 'submitted'];

export const OPERATION_STATUSES: readonly OperationStatus[] = [
  ...UNSETTLED_STATUSES,
  'confirmed',
  'failed',
];
