import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, METRICS, boundedText, newId, type AssetIntent } from '@app/common';
import { tokenMintsPerTransaction, type NetworkDefinition } from '@app/chains';
import {
  AssetRepository,
  BatchRepository,
  IdempotencyRepository,
  newQueuedOperation,
  type AssetDetails,
  type BatchEntity,
  type BatchKind,
  type MetadataDocumentEntity,
  type OperationEntity,
} from '@app/database';
import { OperationQueue } from '@app/queue';
import { AssetLocator } from '../assets/asset-locator';
import { fromBaseUnits, toChainUnits } from '../assets/amounts';
import { MetadataDocuments } from '../assets/metadata-documents';
import { itemRoyalty } from '../assets/nft.service';
import { hashOf, keyWindowStart, replayedBatchId } from '../operations/idempotency-key-reuse';
import type { IdempotencyRequest } from '../operations/operation-submitter';
import { storeThroughCut } from '../operations/store-through-cut';
import type { NftAirdropInput, TokenAirdropInput } from './airdrop-inputs';
import { cutIntoCarriers, newCarrier } from './carriers';
import { checkEntries } from './entry-problems';
import { SigningPolicies } from '../policies/signing-policies';

/** One entry, checked: what its operation asks and shows. */
interface Entry {
  intent: AssetIntent;
  details: AssetDetails;
  document?: MetadataDocumentEntity;
}

/** What accepting an airdrop did. */
export interface AcceptedBatch {
  batch: BatchEntity;
  /** An earlier request's batch (an idempotent replay): nothing was written now. */
  replayed: boolean;
}

/**
 * Accepts airdrops (contract, "Airdrops"): every entry is checked before anything is stored; then
 * the batch and its entries (each an operation of its own, a *member*) are stored in one
 * transaction with the Idempotency-Key, and the job that packs them into carriers is queued.
 */
@Injectable()
export class AirdropService {
  private readonly logger = new Logger(AirdropService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly locator: AssetLocator,
    private readonly assets: AssetRepository,
    private readonly metadata: MetadataDocuments,
    private readonly batches: BatchRepository,
    private readonly idempotency: IdempotencyRepository,
    private readonly queue: OperationQueue,
    private readonly policies: SigningPolicies,
  ) {}

  async tokens(
    accountId: string,
    mint: string,
    input: TokenAirdropInput,
    idempotency?: IdempotencyRequest,
  ): Promise<AcceptedBatch> {
    const { asset, network } = await this.locator.ownAsset(accountId, 'token', mint, input.network);
    const signer = await this.locator.managedWallet(accountId, network.family);
    if (asset.owner !== signer) {
      throw new AppError(
        'FORBIDDEN',
        'The managed wallet is not the mint authority of this token.',
      );
    }
    const decimals = asset.decimals ?? 0;
    const own = [{ address: asset.address, what: 'token' as const }];
    const solana = network.family === 'solana' ? { decimals } : {};
    const entries = checkEntries(input.recipients, (entry, i): Entry => {
      const field = `recipients[${i}]`;
      const recipient = this.locator.recipient(network, entry.recipient, own, `${field}.recipient`);
      const units = toChainUnits(entry.amount, decimals, network.family, `${field}.amount`);
      return {
        intent: {
          kind: 'token.mint',
          asset: asset.address,
          recipient,
          amount: units.toString(),
          ...solana,
        },
        details: { amount: fromBaseUnits(units, decimals), decimals },
      };
    });
    return this.accept(
      accountId,
      network,
      signer,
      'token.airdrop',
      asset.address,
      entries,
      idempotency,
    );
  }

  async nfts(
    accountId: string,
    collectionAddress: string,
    input: NftAirdropInput,
    idempotency?: IdempotencyRequest,
  ): Promise<AcceptedBatch> {
    const { asset, network } = await this.locator.ownAsset(
      accountId,
      'collection',
      collectionAddress,
      input.network,
    );
    const signer = await this.locator.managedWallet(accountId, network.family);
    const own = [{ address: asset.address, what: 'collection' as const }];
    const entries = checkEntries(input.items, (item, i): Entry => {
      const recipient = this.locator.recipient(
        network,
        item.recipient,
        own,
        `items[${i}].recipient`,
      );
      const royalty = itemRoyalty(network, item.seller_fee, asset.details.seller_fee ?? 0);
      const document = this.metadata.prepare(accountId, {
        name: item.name,
        symbol: asset.symbol || undefined,
        description: item.description,
        image: item.images[0],
        images: item.images,
        attributes: item.attributes,
        seller_fee_basis_points: royalty.effective,
      });
      return {
        intent: {
          kind: 'nft.mint',
          collection: asset.address,
          recipient,
          name: item.name,
          metadataUri: document.uri,
          ...(network.family === 'solana' ? { symbol: asset.symbol } : {}),
          ...(royalty.onChain === undefined ? {} : { sellerFeeBps: royalty.onChain }),
        },
        details: {
          description: item.description,
          images: item.images,
          attributes: item.attributes,
          seller_fee: royalty.effective,
        },
        document: document.row,
      };
    });
    const maxSupply = BigInt(asset.details.max_supply ?? 0);
    const minted = BigInt(await this.assets.countItems(asset.id));
    if (maxSupply > 0n && minted + BigInt(entries.length) > maxSupply) {
      throw AppError.conflict(
        `The collection's max supply (${maxSupply}) leaves room for ${maxSupply - minted} more items, not ${entries.length}.`,
      );
    }
    return this.accept(
      accountId,
      network,
      signer,
      'nft.airdrop',
      asset.address,
      entries,
      idempotency,
    );
  }

  private async accept(
    accountId: string,
    network: NetworkDefinition,
    signer: string,
    kind: BatchKind,
    asset: string,
    entries: Entry[],
    idempotency?: IdempotencyRequest,
  ): Promise<AcceptedBatch> {
    const entryName = (index: number) =>
      kind === 'token.airdrop' ? `recipients[${index}]` : `items[${index}]`;
    await this.policies.admit(
      accountId,
      network,
      signer,
      entries.map((entry) => entry.intent),
      entryName,
    );
    const now = new Date();
    const batch: BatchEntity = {
      id: newId(),
      accountId,
      kind,
      network: network.network,
      chainKey: network.chainKey,
      asset,
      signer,
      total: entries.length,
      status: 'open',
      createdAt: now,
      completedAt: null,
    };
    const members: OperationEntity[] = entries.map((entry, index) => ({
      ...newQueuedOperation(
        {
          id: newId(),
          accountId,
          network: network.network,
          chainKey: network.chainKey,
          signer,
          intent: entry.intent,
          details: entry.details,
          metadataId: entry.document?.id ?? null,
        },
        now,
      ),
      batchId: batch.id,
      batchIndex: index,
      carrierId: null,
    }));
    const documents = entries.flatMap((entry) => (entry.document ? [entry.document] : []));
    const carriers = packedAtAcceptance(network, kind, members);
    const stored = { noun: 'batch', id: batch.id, path: `/batches/${batch.id}` } as const;
    const readBack = () => this.batches.findById(batch.id);
    if (idempotency) {
      const earlier = await storeThroughCut(
        () => this.insertClaimingKey(batch, members, documents, carriers, idempotency),
        null,
        readBack,
        stored,
      );
      if (earlier) return { batch: earlier, replayed: true };
    } else {
      await storeThroughCut(
        () => this.batches.insertAll(batch, members, documents, carriers),
        undefined,
        readBack,
        stored,
      );
    }
    METRICS.operations.inc(
      { kind: members[0].kind, network: network.network, status: 'queued' },
      members.length,
    );
    this.logger.log({ msg: 'Airdrop accepted', batchId: batch.id, kind, total: batch.total });
    await this.queue
      .enqueuePack({ id: batch.id, network: network.network, accountId, signer })
      .catch((error: unknown) =>
        this.logger.warn(
          `Batch ${batch.id} saved but not queued (${boundedText(error, 500)}); the reconciler will.`,
        ),
      );
    return { batch, replayed: false };
  }

  /** The batch and its key in one transaction; an earlier request's batch if it holds the key. */
  private async insertClaimingKey(
    batch: BatchEntity,
    members: OperationEntity[],
    documents: MetadataDocumentEntity[],
    carriers: OperationEntity[],
    idempotency: IdempotencyRequest,
  ): Promise<BatchEntity | null> {
    const requestHash = hashOf(idempotency.fingerprint);
    const notBefore = keyWindowStart(batch.createdAt, this.config.operations.idempotencyTtlHours);
    const claimed = await this.idempotency.claimWith(
      {
        accountId: batch.accountId,
        key: idempotency.key,
        requestHash,
        operationId: null,
        batchId: batch.id,
        createdAt: batch.createdAt,
      },
      notBefore,
      (scope) => this.batches.insert(scope, batch, members, documents, carriers),
    );
    if (claimed) return null;
    const holder = await this.idempotency.find(batch.accountId, idempotency.key, notBefore);
    const earlier = await this.batches.findById(replayedBatchId(holder, requestHash));
    if (!earlier) throw new Error(`Idempotency key points at a missing batch`);
    return earlier;
  }
}

/**
 * The carriers of a Solana token airdrop, made as it is accepted (each member given its carrier):
 * how many mints one transaction carries is known without the chain (the packet's size), so the
 * worker's packing job only queues them, and the entries are not written a second time to be
 * packed (10,000 rows, each a new version in every index of theirs). Other airdrops are packed by
 * the worker (AirdropPacker): an EVM carrier's size comes from gas estimates, and Solana NFT
 * items run alone.
 */
function packedAtAcceptance(
  network: NetworkDefinition,
  kind: BatchKind,
  members: OperationEntity[],
): OperationEntity[] {
  if (network.family !== 'solana' || kind !== 'token.airdrop') return [];
  const { carriers: groups } = cutIntoCarriers(members, tokenMintsPerTransaction(), true);
  return groups.map((group) => {
    const carrier = newCarrier(group);
    for (const member of group) member.carrierId = carrier.id;
    return carrier;
  });
}
