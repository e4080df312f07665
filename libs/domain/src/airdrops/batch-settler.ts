import { Injectable, Logger } from '@nestjs/common';
import {
  KeyedGroupWriters,
  METRICS,
  boundedText,
  isCarrierIntent,
  newId,
  type AppError,
  type AssetOutcome,
} from '@app/common';
import {
  AccountEventRepository,
  AssetRepository,
  BatchRepository,
  UnitOfWork,
  type MemberSettlement,
  type NftItemEntity,
  type OperationEntity,
  type WorkScope,
} from '@app/database';
import { OperationQueue } from '@app/queue';
import { FaultInjection } from '../operations/fault-injection';
import { MetadataDocuments } from '../assets/metadata-documents';
import { newCarrier } from './carriers';
import { batchView } from './batch-view';
import { PolicyViolation } from '../policies/signing-policy';

const MAX_ERROR_MESSAGE = 500;
/** Carriers confirmed in one transaction at most. */
const MAX_CONFIRMATIONS_A_WRITE = 32;

/** One carrier's confirmation, as written. */
interface Confirmation {
  settlements: MemberSettlement[];
  nftItems: NftItemEntity[];
}

/**
 * Failures of a carrier that say nothing of its members: each member would fail alone the same
 * way, so they fail with it instead of being split.
 */
const NOT_ABOUT_ITEMS = new Set<AppError['code']>(['INSUFFICIENT_FUNDS', 'RETRIES_EXHAUSTED']);

/**
 * Settles what an airdrop's carriers did (docs/airdrops.md): a confirmed carrier confirms each of
 * its members with what it minted; a failed one with several members is split in two new
 * carriers, so one bad entry never fails its neighbours, and a lone member fails with the
 * reason. The batch closes, with `batch.completed` on the feed, when its last member settles.
 * Each settlement runs in one transaction that takes the batch's lock last (closeIfDone).
 */
@Injectable()
export class BatchSettler {
  private readonly logger = new Logger(BatchSettler.name);
  /** By batch: confirmations waiting for, or in, their write. */
  private readonly confirmations = new KeyedGroupWriters<Confirmation>(
    (batchId, confirmations) => this.writeConfirmations(batchId, confirmations),
    MAX_CONFIRMATIONS_A_WRITE,
  );

  constructor(
    private readonly batches: BatchRepository,
    private readonly assets: AssetRepository,
    private readonly events: AccountEventRepository,
    private readonly work: UnitOfWork,
    private readonly queue: OperationQueue,
    private readonly metadata: MetadataDocuments,
    private readonly faults: FaultInjection,
  ) {}

  /**
   * A confirmed carrier: its members confirmed with what each minted. Confirmations of one batch
   * that arrive while another is being written are written together (GroupWriter): one
   * transaction, one turn of the account's event lock and one commit for many carriers.
   */
  async confirm(carrier: OperationEntity, outcome: AssetOutcome, landedTxHash?: string) {
    const members = await this.batches.carried(carrier.id);
    const items = outcome.items ?? [];
    if (items.length !== members.length) {
      throw new Error(`Carrier ${carrier.id} minted ${items.length} items for ${members.length}`);
    }
    const txHash = landedTxHash ?? carrier.txHash;
    const settlements: MemberSettlement[] = [
      { id: carrier.id, outcome: { items }, txHash },
      ...members.map((member, i) => ({ id: member.id, outcome: items[i], txHash })),
    ];
    const nftItems = await this.itemRows(carrier, members, items);
    await this.confirmations.submit(carrier.batchId!, { settlements, nftItems });
    METRICS.operations.inc(
      { kind: members[0]?.kind ?? carrier.kind, network: carrier.network, status: 'confirmed' },
      members.length,
    );
    this.logger.log({
      msg: 'Carrier confirmed',
      carrierId: carrier.id,
      items: members.length,
      txHash,
    });
  }

  private async writeConfirmations(batchId: string, confirmations: Confirmation[]) {
    await this.work.run(async (scope) => {
      const settled = new Set(
        await this.batches.settleMembers(
          scope,
          confirmations.flatMap((confirmation) => confirmation.settlements),
        ),
      );
      await this.batches.insertItems(
        scope,
        confirmations.flatMap(({ nftItems }) => nftItems.filter((i) => settled.has(i.operationId))),
      );
      await this.closeIfDone(scope, batchId);
    });
  }

  /**
   * A failed carrier: split when it carries several members, else its member fails. False when
   * nothing was written: it had settled meanwhile, or (`onlyQueued`) it had been signed.
   */
  async fail(
    carrier: OperationEntity,
    error: AppError,
    options: { onlyQueued?: boolean } = {},
  ): Promise<boolean> {
    let afterCommit: () => Promise<void>;
    try {
      afterCommit = await this.work.run((scope) =>
        this.settleFailure(scope, carrier, error, options.onlyQueued ?? false),
      );
    } catch (caught) {
      if (caught instanceof CarrierSettledMeanwhile) return false;
      throw caught;
    }
    await afterCommit();
    return true;
  }

  /**
   * `fail` within the transaction of `scope`, whose caller holds what makes the failure safe
   * (its wallet's lock); returns what to do once that transaction commits (queue the halves).
   */
  async failWithin(
    scope: WorkScope,
    carrier: OperationEntity,
    error: AppError,
  ): Promise<() => Promise<void>> {
    try {
      return await this.settleFailure(scope, carrier, error, false);
    } catch (caught) {
      if (caught instanceof CarrierSettledMeanwhile) return async () => undefined;
      throw caught;
    }
  }

  /** Throws CarrierSettledMeanwhile before writing anything when it is not the carrier's to fail. */
  private async settleFailure(
    scope: WorkScope,
    carrier: OperationEntity,
    error: AppError,
    onlyQueued: boolean,
  ): Promise<() => Promise<void>> {
    const reason = { code: error.code, message: boundedText(error.message, MAX_ERROR_MESSAGE) };
    const members = await this.batches.carried(carrier.id, scope);
    const split =
      members.length > 1 &&
      !NOT_ABOUT_ITEMS.has(error.code) &&
      !(error instanceof PolicyViolation && !error.aboutEntries);
    const halves = split
      ? [members.slice(0, members.length >> 1), members.slice(members.length >> 1)]
      : [];
    const carriers = halves.map((half) => ({
      carrier: newCarrier(half),
      memberIds: half.map((member) => member.id),
    }));
    const state = await this.batches.lockedState(scope, carrier.id);
    const status = state?.status;
    if (status !== 'queued' && (onlyQueued || status === 'confirmed' || status === 'failed')) {
      throw new CarrierSettledMeanwhile();
    }
    const settlements: MemberSettlement[] = [{ id: carrier.id, error: reason }];
    if (split) await this.batches.release(scope, carrier.id);
    else {
      const txHash = state?.txHash ?? null;
      settlements.push(...members.map((member) => ({ id: member.id, error: reason, txHash })));
    }
    const failed = await this.batches.settleMembers(scope, settlements);
    if (!failed.includes(carrier.id)) throw new Error(`Carrier ${carrier.id} did not fail`);
    if (!(await this.batches.insertCarriers(scope, carriers))) {
      throw new Error(`Members of carrier ${carrier.id} were taken while it split`);
    }
    await this.closeIfDone(scope, carrier.batchId!);
    this.logger.warn({
      msg: split
        ? 'Carrier failed; its members are split in two'
        : 'Carrier failed with its members',
      carrierId: carrier.id,
      items: members.length,
      errorCode: reason.code,
      errorMessage: reason.message,
    });
    // Queued after the commit. Not queued (the process died first), the carrier's job runs
    // again and packs the batch again (OperationRunner), which queues them; lost with Redis,
    // the reconciler does.
    return async () => {
      if (carriers.length > 0) this.faults.at('crash-after-split');
      for (const { carrier: next } of carriers) {
        await this.queue.enqueue(next).catch(() => undefined);
      }
    };
  }

  /** A member that ran alone (not carried) settled: its batch may be done. */
  async memberSettled(member: OperationEntity): Promise<void> {
    if (!member.batchId || isCarrierIntent(member.intent)) return;
    await this.work.run((scope) => this.closeIfDone(scope, member.batchId!));
  }

  /**
   * The last statements of each settlement's transaction: the batch's lock, then the check. The
   * check's snapshot is taken once the lock is held, so it sees every settlement that took the
   * lock before; the last settlement to take it closes the batch. Taken last, the lock is held
   * only for the check and the commit (taken first, it serialized whole settlements: 46 ms of
   * waiting a carrier in a 10,000-entry Solana airdrop).
   */
  private async closeIfDone(scope: WorkScope, batchId: string): Promise<void> {
    await this.batches.lock(scope, batchId);
    const closed = await this.batches.completeIfSettled(scope, batchId);
    if (!closed) return;
    const counts = (await this.batches.counts([batchId], scope)).get(batchId)!;
    await this.events.append(
      closed.accountId,
      'batch.completed',
      { ...batchView(closed, counts) },
      scope,
    );
    this.logger.log({ msg: 'Batch completed', batchId, status: closed.status, ...counts });
  }

  /** The item rows a confirmed NFT carrier makes, one per member (none for tokens). */
  private async itemRows(
    carrier: OperationEntity,
    members: OperationEntity[],
    items: AssetOutcome[],
  ): Promise<NftItemEntity[]> {
    if (carrier.intent.kind !== 'nft.mintBatch') return [];
    const collection = await this.assets.findAsset(carrier.chainKey, carrier.intent.collection);
    if (!collection) throw new Error(`Collection ${carrier.intent.collection} is not recorded`);
    const baseUri = this.metadata.itemsBaseUri(collection.operationId);
    return members.map((member, i) => {
      const tokenId = items[i].tokenId!;
      const intent = member.intent as Extract<OperationEntity['intent'], { kind: 'nft.mint' }>;
      return {
        id: newId(),
        collectionId: collection.id,
        tokenId,
        mintAddress: collection.address,
        owner: intent.recipient,
        burned: false,
        name: intent.name,
        metadataId: member.metadataId,
        metadataUri: `${baseUri}${tokenId}`,
        details: member.details,
        operationId: member.id,
        createdAt: new Date(),
      };
    });
  }
}

/** Another worker settled the carrier first: nothing is written here. */
class CarrierSettledMeanwhile extends Error {}
