import { Injectable } from '@nestjs/common';
import { AppError, newId, type AssetIntent } from '@app/common';
import { NetworkRegistry, type NetworkDefinition } from '@app/chains';
import { AssetRepository, type AssetEntity, type NftItemEntity } from '@app/database';
import { OperationSubmitter, type IdempotencyRequest } from '../operations/operation-submitter';
import { AssetLocator } from './asset-locator';
import { checkEvmTokenId } from './chain-limits';
import type { CreateCollectionInput, MintNftInput, NftItemInput } from './asset-inputs';
import { MetadataDocuments } from './metadata-documents';
import { NftLocator } from './nft-locator';

/** NFT collections and their items: create, mint, transfer and burn (operations). */
@Injectable()
export class NftService {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly locator: AssetLocator,
    private readonly assets: AssetRepository,
    private readonly submitter: OperationSubmitter,
    private readonly metadata: MetadataDocuments,
    private readonly nfts: NftLocator,
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
        : this.metadata.prepare(accountId, {
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
    const id = newId();
    return this.submitter.submit(
      {
        id,
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
          // Items airdropped in batches have their metadata at this URI and their token id.
          ...(network.family === 'evm' ? { itemsBaseUri: this.metadata.itemsBaseUri(id) } : {}),
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
    const document = this.metadata.prepare(accountId, {
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

  /** The item a transfer or burn acts on, checked: it exists (404), lives (409), is ours (403). */
  private async heldItem(accountId: string, address: string, input: NftItemInput, field: string) {
    const evm = this.locator.pathAddress(address, input.network).family === 'evm';
    if (evm && input.token_id === undefined) {
      throw AppError.badRequest(`${field} is required on EVM networks.`);
    }
    if (evm) checkEvmTokenId(input.token_id!, field);
    const found = await this.nfts.find(accountId, address, input.token_id, field, input.network);
    if (!found.item) {
      throw AppError.badRequest(
        `${field} (the item's mint address) is required when the address is a collection's.`,
      );
    }
    return this.checkHeld(accountId, found.network, found.collection, found.item);
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
}

/**
 * An item's royalty (contract, "Amounts"): its own `seller_fee`, else the collection's.
 * `onChain` is what the mint transaction writes: on EVM only the item's own fee (ERC-2981 falls
 * back to the collection's default on chain); a Solana mint's metadata stands alone, so there the
 * collection's fee is written too (when it has one).
 */
export function itemRoyalty(
  network: NetworkDefinition,
  own: number | undefined,
  collectionFee: number,
): { effective: number; onChain: number | undefined } {
  const inherited = network.family === 'solana' && collectionFee > 0 ? collectionFee : undefined;
  return { effective: own ?? collectionFee, onChain: own ?? inherited };
}
