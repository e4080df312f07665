import { Injectable } from '@nestjs/common';
import { AppError, type AssetIntent } from '@app/common';
import type { Network } from '@app/config';
import {
  EvmAdapter,
  NetworkRegistry,
  SolanaAdapter,
  asEvm,
  groupOf,
  metadataOf,
  readMintedCount,
  readNftOwner,
  readSolanaItemHolder,
  readSolanaMint,
  type NetworkDefinition,
  type SolanaNetworkDefinition,
} from '@app/chains';
import { AssetEntity, AssetRepository, type NftItemEntity } from '@app/database';
import { OperationSubmitter, type IdempotencyRequest } from '../operations/operation-submitter';
import { AssetLocator } from './asset-locator';
import { checkEvmTokenId } from './chain-limits';
import type { CreateCollectionInput, MintNftInput, NftItemInput } from './asset-inputs';
import { MetadataHost } from './metadata';

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

export interface ItemView {
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

/** NFT collections and their items: create, mint, transfer, burn (operations) and read. */
@Injectable()
export class NftService {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly locator: AssetLocator,
    private readonly assets: AssetRepository,
    private readonly submitter: OperationSubmitter,
    private readonly metadata: MetadataHost,
    private readonly evm: EvmAdapter,
    private readonly solana: SolanaAdapter,
  ) {}

  async createCollection(
    accountId: string,
    input: CreateCollectionInput,
    idempotency?: IdempotencyRequest,
  ) {
    const network = this.networks.resolve(input.network);
    const signer = await this.locator.managedWallet(accountId, network.family);
    const sellerFee = input.seller_fee ?? 0;
    const document =
      input.uploadMetadata === false
        ? null
        : this.metadata.host(accountId, {
            name: input.name,
            symbol: input.symbol,
            description: input.description,
            image: input.images[0],
            images: input.images,
            external_link: input.website,
            attributes: input.attributes,
            seller_fee_basis_points: sellerFee,
            fee_recipient: sellerFee > 0 ? signer : undefined,
          });
    return this.submitter.submit(
      {
        accountId,
        network,
        signer,
        intent: {
          kind: 'nft.create',
          name: input.name,
          symbol: input.symbol ?? '',
          metadataUri: document?.uri ?? '',
          maxSupply: String(input.max_supply ?? 0),
          sellerFeeBps: sellerFee,
        },
        details: {
          description: input.description,
          images: input.images,
          website: input.website,
          attributes: input.attributes,
          seller_fee: sellerFee,
          max_supply: input.max_supply === undefined ? null : String(input.max_supply),
        },
        metadata: document?.row,
      },
      idempotency,
    );
  }

  async mint(
    accountId: string,
    collectionAddress: string,
    input: MintNftInput,
    idempotency?: IdempotencyRequest,
  ) {
    const { asset, network } = await this.locator.ownAsset(
      accountId,
      'collection',
      collectionAddress,
      input.network,
    );
    const maxSupply = BigInt(asset.details.max_supply ?? 0);
    if (maxSupply > 0n && BigInt(await this.assets.countItems(asset.id)) >= maxSupply) {
      throw AppError.conflict(`The collection has reached its max supply (${maxSupply}).`);
    }
    const signer = await this.locator.managedWallet(accountId, network.family);
    const recipient = this.locator.recipient(network, input.recipient ?? signer, [
      { address: asset.address, what: 'collection' },
    ]);
    const royalty = itemRoyalty(network, input.seller_fee, asset.details.seller_fee ?? 0);
    const document = this.metadata.host(accountId, {
      name: input.name,
      symbol: input.symbol,
      description: input.description,
      image: input.images[0],
      images: input.images,
      attributes: input.attributes,
      external_url: input.website,
      seller_fee_basis_points: royalty.effective,
    });
    return this.submitter.submit(
      {
        accountId,
        network,
        signer,
        intent: {
          kind: 'nft.mint',
          collection: asset.address,
          recipient,
          name: input.name,
          metadataUri: document.uri,
          // Solana items carry their symbol in their on-chain metadata.
          ...(network.family === 'solana' ? { symbol: input.symbol ?? asset.symbol } : {}),
          ...(royalty.onChain === undefined ? {} : { sellerFeeBps: royalty.onChain }),
        },
        details: {
          description: input.description,
          images: input.images,
          website: input.website,
          attributes: input.attributes,
          seller_fee: royalty.effective,
        },
        metadata: document.row,
      },
      idempotency,
    );
  }

  async transfer(
    accountId: string,
    address: string,
    input: NftItemInput,
    idempotency?: IdempotencyRequest,
  ) {
    if (!input.recipient) throw AppError.badRequest('recipient is required.');
    const { network, collection, item, signer } = await this.heldItem(
      accountId,
      address,
      input,
      'token_id',
    );
    const recipient = this.locator.recipient(network, input.recipient, [
      { address: collection.address, what: 'collection' },
      // On Solana the item is a mint of its own; on EVM it lives in the collection's contract.
      ...(network.family === 'solana'
        ? [{ address: item.mintAddress, what: 'item' as const }]
        : []),
    ]);
    const intent: AssetIntent = {
      kind: 'nft.transfer',
      collection: collection.address,
      tokenId: item.tokenId,
      recipient,
    };
    return this.submitter.submit({ accountId, network, signer, intent }, idempotency);
  }

  async burn(
    accountId: string,
    address: string,
    input: NftItemInput,
    idempotency?: IdempotencyRequest,
  ) {
    const { network, collection, item, signer } = await this.heldItem(
      accountId,
      address,
      input,
      'tokenId',
    );
    return this.submitter.submit(
      {
        accountId,
        network,
        signer,
        intent: { kind: 'nft.burn', collection: collection.address, tokenId: item.tokenId },
      },
      idempotency,
    );
  }

  async get(accountId: string, address: string, tokenId?: string, network?: Network) {
    if (this.locator.pathAddress(address, network).family === 'solana') {
      return this.getSolana(accountId, address, tokenId, network);
    }
    const { asset, network: definition } = await this.locator.ownAsset(
      accountId,
      'collection',
      address,
      network,
    );
    const evm = asEvm(definition); // an EVM-format address only ever names an EVM asset
    const provider = this.evm.provider(evm);
    if (tokenId === undefined) {
      const minted = await readMintedCount(provider, asset.address).catch(() => rpcDown(evm));
      return collectionView(asset, minted);
    }
    checkEvmTokenId(tokenId, 'token_id');
    const item = await this.assets.findItem(asset.id, tokenId);
    if (!item) throw AppError.notFound(`No token ${tokenId} in collection ${asset.address}.`);
    const owner = item.burned ? null : await readNftOwner(provider, asset.address, item.tokenId);
    return itemView(asset, item, owner);
  }

  /** Solana: a collection's mint (with or without token_id = an item's mint), or an item's. */
  private async getSolana(
    accountId: string,
    address: string,
    tokenId: string | undefined,
    network: Network | undefined,
  ): Promise<CollectionView | ItemView> {
    const found = await this.solanaTarget(accountId, address, tokenId, 'token_id', network);
    const definition = found.network as SolanaNetworkDefinition;
    if (!found.item) {
      const mint = await readSolanaMint(this.solana, definition, found.collection.address).catch(
        () => rpcDown(definition),
      );
      const group = mint ? groupOf(mint) : null;
      if (!mint || !group) rpcDown(definition);
      return withChainMetadata(collectionView(found.collection, group.size), metadataOf(mint));
    }
    const item = found.item;
    const { mint, holder } = await readSolanaItemHolder(
      this.solana,
      definition,
      item.mintAddress,
      item.owner,
    ).catch(() => rpcDown(definition));
    const burned = item.burned || !mint || mint.supply === 0n;
    const view = itemView(found.collection, item, burned ? null : holder);
    return withChainMetadata({ ...view, burned }, mint ? metadataOf(mint) : null);
  }

  /** The item a transfer or burn acts on, checked: it exists (404), lives (409), is ours (403). */
  private async heldItem(accountId: string, address: string, input: NftItemInput, field: string) {
    if (this.locator.pathAddress(address, input.network).family === 'solana') {
      const found = await this.solanaTarget(
        accountId,
        address,
        input.token_id,
        field,
        input.network,
      );
      if (!found.item) {
        throw AppError.badRequest(
          `${field} (the item's mint address) is required when the address is a collection's.`,
        );
      }
      return this.checkHeld(accountId, found.network, found.collection, found.item);
    }
    if (input.token_id === undefined) {
      throw AppError.badRequest(`${field} is required on EVM networks.`);
    }
    checkEvmTokenId(input.token_id, field);
    const { asset, network } = await this.locator.ownAsset(
      accountId,
      'collection',
      address,
      input.network,
    );
    const item = await this.assets.findItem(asset.id, input.token_id);
    if (!item)
      throw AppError.notFound(`No token ${input.token_id} in collection ${asset.address}.`);
    return this.checkHeld(accountId, network, asset, item);
  }

  private async checkHeld(
    accountId: string,
    network: NetworkDefinition,
    collection: AssetEntity,
    item: NftItemEntity,
  ) {
    if (item.burned) throw AppError.conflict(`Token ${item.tokenId} was already burned.`);
    const signer = await this.locator.managedWallet(accountId, network.family);
    if (item.owner !== signer) {
      throw new AppError('FORBIDDEN', `The managed wallet does not hold token ${item.tokenId}.`);
    }
    return { network, collection, item, signer };
  }

  /**
   * What a Solana `{mint_address}` names (contract, "NFT transfer"): a collection's mint, with
   * `token_id` = one of its items' mints, or an item's mint itself. Unknown, or another
   * account's: 404. A `network` other than the asset's: 400.
   */
  private async solanaTarget(
    accountId: string,
    address: string,
    tokenId: string | undefined,
    field: string,
    network: Network | undefined,
  ): Promise<{ network: NetworkDefinition; collection: AssetEntity; item: NftItemEntity | null }> {
    const itemMint = tokenId === undefined ? undefined : this.solanaItemId(tokenId, field);
    const collection = await this.locator
      .ownAsset(accountId, 'collection', address, network)
      .catch((error: unknown) => {
        if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
        throw error;
      });
    if (collection) {
      if (itemMint === undefined)
        return { ...collection, collection: collection.asset, item: null };
      const item = await this.assets.findItem(collection.asset.id, itemMint);
      if (!item) throw AppError.notFound(`No item ${itemMint} in collection ${address}.`);
      return { network: collection.network, collection: collection.asset, item };
    }

    const canonical = this.solana.normalizeAddress(address)!;
    const item = await this.assets.findItemByMint(canonical);
    const owner = item ? await this.assets.findById(item.collectionId) : null;
    if (!item || !owner || owner.accountId !== accountId || owner.kind !== 'collection') {
      throw AppError.notFound(`No NFT collection or item ${address} in this account.`);
    }
    if (network && this.networks.resolve(network).chainKey !== owner.chainKey) {
      throw AppError.badRequest(`network must match the NFT collection's (${owner.network}).`);
    }
    if (itemMint !== undefined && itemMint !== item.mintAddress) {
      throw AppError.badRequest(`${field} must be the item's mint address (${item.mintAddress}).`);
    }
    return { network: this.networks.resolve(owner.network), collection: owner, item };
  }

  /** On Solana an item's token id is its mint address. */
  private solanaItemId(tokenId: string, field: string): string {
    const canonical = this.solana.normalizeAddress(tokenId);
    if (!canonical) {
      throw AppError.badRequest(`${field} must be an item's mint address on Solana.`);
    }
    return canonical;
  }
}

function collectionView(asset: AssetEntity, minted: bigint): CollectionView {
  return {
    type: 'collection',
    network: asset.network,
    mint_address: asset.address,
    name: asset.name,
    symbol: asset.symbol,
    description: asset.details.description,
    images: asset.details.images,
    website: asset.details.website,
    attributes: asset.details.attributes,
    seller_fee: asset.details.seller_fee ?? 0,
    max_supply: asset.details.max_supply ?? null,
    minted: minted.toString(),
    metadata_uri: asset.metadataUri,
    owner: asset.owner,
    created_at: asset.createdAt.toISOString(),
  };
}

/**
 * An item's royalty (contract, "Amounts"): its own `seller_fee`, else the collection's.
 * `onChain` is what the mint transaction writes: on EVM only the item's own fee (ERC-2981 falls
 * back to the collection's default on chain); a Solana mint's metadata stands alone, so there the
 * collection's fee is written too (when it has one).
 */
function itemRoyalty(
  network: NetworkDefinition,
  own: number | undefined,
  collectionFee: number,
): { effective: number; onChain: number | undefined } {
  const inherited = network.family === 'solana' && collectionFee > 0 ? collectionFee : undefined;
  return { effective: own ?? collectionFee, onChain: own ?? inherited };
}

function itemView(collection: AssetEntity, item: NftItemEntity, owner: string | null): ItemView {
  return {
    type: 'item',
    network: collection.network,
    collection: collection.address,
    mint_address: item.mintAddress,
    token_id: item.tokenId,
    owner,
    burned: item.burned,
    metadata_uri: item.metadataUri,
    name: item.name,
    description: item.details.description,
    images: item.details.images,
    attributes: item.details.attributes,
    // Items minted before per-item royalties stored none: theirs is the collection's.
    seller_fee: item.details.seller_fee ?? collection.details.seller_fee ?? 0,
    created_at: item.createdAt.toISOString(),
  };
}

/** On Solana the metadata lives in the mint itself: its name, symbol and URI are the chain's. */
function withChainMetadata<T extends CollectionView | ItemView>(
  view: T,
  metadata: { name: string; symbol: string; uri: string } | null,
): T {
  if (!metadata) return view;
  return {
    ...view,
    name: metadata.name,
    ...(view.type === 'collection' ? { symbol: metadata.symbol } : {}),
    metadata_uri: metadata.uri || null,
  };
}

function rpcDown(network: NetworkDefinition): never {
  throw new AppError('BAD_GATEWAY', `The ${network.network} RPC did not answer; try again.`);
}
