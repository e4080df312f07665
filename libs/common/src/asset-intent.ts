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
      /**
       * EVM: where items minted without a URI of their own (airdropped in batches) have their
       * metadata: the token URI is this followed by the token id. Absent on collections created
       * before batches existed (their contract has no base URI and no batch mint).
       */
      itemsBaseUri?: string;
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
  | { kind: 'nft.burn'; collection: string; tokenId: string }
  /**
   * Many mints of an airdrop in one transaction (a carrier: see CARRIER_KINDS), to
   * `recipients[i]` in order. Each mint is an operation of its own that the carrier carries.
   */
  | {
      kind: 'token.mintBatch';
      asset: string;
      recipients: string[];
      amounts: string[];
      decimals?: number;
    }
  | {
      kind: 'nft.mintBatch';
      collection: string;
      recipients: string[];
      /** The items' own royalties, in the order of `recipients`: all of them or none. */
      sellerFeeBps?: number[];
    };

export type OperationKind = AssetIntent['kind'];

/**
 * The kinds of carrier operations: internal, never shown to clients, each driving one
 * transaction that carries several mints of an airdrop (the operations clients see).
 */
export const CARRIER_KINDS = ['token.mintBatch', 'nft.mintBatch'] as const;
export type CarrierKind = (typeof CARRIER_KINDS)[number];
export type CarrierIntent = Extract<AssetIntent, { kind: CarrierKind }>;

export function isCarrierIntent(intent: AssetIntent): intent is CarrierIntent {
  return (CARRIER_KINDS as readonly string[]).includes(intent.kind);
}

/** The kinds of operations clients see (carriers are not among them). */
export const OPERATION_KINDS: readonly Exclude<OperationKind, CarrierKind>[] = [
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
  /** A carrier: what each mint it carries produced, in the order of its intent's recipients. */
  items?: AssetOutcome[];
}

export type OperationStatus = 'queued' | 'signed' | 'submitted' | 'confirmed' | 'failed';

export const UNSETTLED_STATUSES: readonly OperationStatus[] = ['queued', 'signed', 'submitted'];

export const OPERATION_STATUSES: readonly OperationStatus[] = [
  ...UNSETTLED_STATUSES,
  'confirmed',
  'failed',
];
