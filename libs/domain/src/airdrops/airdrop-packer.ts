import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  EvmAdapter,
  NetworkRegistry,
  lacksFunction,
  planEvmCall,
  tokenMintsPerTransaction,
  type EvmNetworkDefinition,
  type NetworkDefinition,
} from '@app/chains';
import {
  BatchRepository,
  UnitOfWork,
  type CarrierOfMembers,
  type OperationEntity,
} from '@app/database';
import { OperationQueue } from '@app/queue';
import { FaultInjection } from '../operations/fault-injection';
import { cutIntoCarriers, hasOwnRoyalty, newCarrier } from './carriers';

/** Entries read at a time while packing. */
const PACK_READ = 2_000;
/** Carriers stored in one transaction and queued together (and lone entries queued together). */
const CARRIERS_PER_WRITE = 64;
/** A sample this large prices an EVM carrier: its estimate less one item's is n-1 items' gas. */
const SAMPLE_ITEMS = 8;
/**
 * The most gas one transaction may use on chains that cap it (EIP-7825, Ethereum since Fusaka:
 * 2^24); a carrier stays under it whatever share of the block it may take.
 */
const TRANSACTION_GAS_CAP = 16_777_216n;
/** Items per carrier when the sample could not be priced (about 4M gas at most). */
const UNPRICED_ITEMS_PER_CARRIER = 50;
/** The most items one carrier mints, however cheap they are (a bounded calldata and receipt). */
const MAX_ITEMS_PER_CARRIER = 1_000;

/**
 * Packs an airdrop's entries into carriers (docs/airdrops.md), each one operation whose single
 * transaction mints several entries: on EVM as many as fit under AIRDROP_BLOCK_GAS_SHARE of the
 * block's gas limit by estimate; on Solana as many token mints as fit in one packet. Entries
 * that cannot share a transaction (Solana NFT items, each a new mint of its own; a collection or
 * token deployed before batch mints) run alone, each its own job, many at once.
 */
@Injectable()
export class AirdropPacker {
  private readonly logger = new Logger(AirdropPacker.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly networks: NetworkRegistry,
    private readonly batches: BatchRepository,
    private readonly work: UnitOfWork,
    private readonly queue: OperationQueue,
    private readonly evm: EvmAdapter,
    private readonly faults: FaultInjection,
  ) {}

  async pack(batchId: string): Promise<void> {
    const batch = await this.batches.findById(batchId);
    if (!batch || batch.status !== 'open') return;
    const network = this.networks.resolve(batch.network);
    // Carriers stored at acceptance (a Solana token airdrop's), or by a run that died before
    // queueing them, or by a split that did: their jobs (the job id is the carrier's, so one
    // that has its job is not doubled), a write's worth at a time; those past a few rounds of
    // the account's in-flight cap go to its line for a slot (each counts those ahead of it).
    const stored = await this.batches.queuedCarriers(batchId);
    for (let i = 0; i < stored.length; i += CARRIERS_PER_WRITE) {
      await Promise.all(
        stored
          .slice(i, i + CARRIERS_PER_WRITE)
          .map((carrier, j) => this.queue.enqueue(carrier, i + j)),
      );
    }
    let carriers = 0;
    let alone = 0;
    // Entries short of a full carrier at a page's end wait for the next page's, so that only
    // the batch's last carrier of each kind is smaller than the rest.
    const leftOver = new Map<boolean, OperationEntity[]>();
    for (let fromIndex = 0; ;) {
      const read = await this.batches.unpacked(batchId, fromIndex, PACK_READ);
      const lastPage = read.length < PACK_READ;
      if (read.length > 0) fromIndex = read[read.length - 1].batchIndex! + 1;
      // Items with a royalty of their own go in carriers of their own (mintBatchWithRoyalty).
      for (const royalty of [true, false]) {
        const group = [
          ...(leftOver.get(royalty) ?? []),
          ...read.filter((entry) => hasOwnRoyalty(entry) === royalty),
        ];
        leftOver.set(royalty, []);
        if (group.length === 0) continue;
        const perCarrier = await this.capacity(network, group);
        if (perCarrier <= 1) {
          await this.queueAlone(group);
          alone += group.length;
          continue;
        }
        const { carriers: page, leftOver: rest } = cutIntoCarriers(group, perCarrier, lastPage);
        leftOver.set(royalty, rest);
        for (let i = 0; i < page.length; i += CARRIERS_PER_WRITE) {
          carriers += await this.carry(page.slice(i, i + CARRIERS_PER_WRITE));
        }
      }
      if (lastPage) break;
    }
    if (alone > 0) await this.batches.touchUnpacked(batchId);
    this.logger.log({ msg: 'Airdrop packed', batchId, carriers, alone });
  }

  /** Entries that run alone: each its own job (the job id is the operation's: queued twice, it runs once). */
  private async queueAlone(entries: OperationEntity[]): Promise<void> {
    for (let i = 0; i < entries.length; i += CARRIERS_PER_WRITE) {
      const jobs = entries.slice(i, i + CARRIERS_PER_WRITE);
      await Promise.all(jobs.map((entry) => this.queue.enqueue(entry)));
    }
  }

  /**
   * Stores carriers of these groups of entries in one transaction, then queues them; returns how
   * many were stored. When another packer took some entries first, each group is stored alone
   * (a group with a taken entry is not).
   */
  private async carry(groups: OperationEntity[][]): Promise<number> {
    const carriers = groups.map((members) => ({
      carrier: newCarrier(members),
      memberIds: members.map((member) => member.id),
    }));
    let stored = await this.store(carriers);
    if (stored.length === 0 && carriers.length > 1) {
      stored = [];
      for (const one of carriers) stored.push(...(await this.store([one])));
    }
    this.faults.at('crash-after-pack');
    // Queued together: one carrier's job after another's costs a round trip each.
    await Promise.all(stored.map((carrier) => this.queue.enqueue(carrier)));
    return stored.length;
  }

  /** The carriers, stored; none when an entry of theirs was taken meanwhile. */
  private async store(carriers: CarrierOfMembers[]): Promise<OperationEntity[]> {
    return this.work
      .run(async (scope) => {
        if (!(await this.batches.insertCarriers(scope, carriers))) throw new EntriesTaken();
        return carriers.map(({ carrier }) => carrier);
      })
      .catch((error: unknown) => {
        if (error instanceof EntriesTaken) return [];
        throw error;
      });
  }

  /** How many of these entries one transaction carries (1: each runs alone). */
  private async capacity(network: NetworkDefinition, entries: OperationEntity[]): Promise<number> {
    const kind = entries[0].intent.kind;
    if (network.family === 'solana') return kind === 'token.mint' ? tokenMintsPerTransaction() : 1;
    return this.evmCapacity(network, entries);
  }

  /**
   * Items per carrier under the gas a transaction may take, priced by estimating a sample
   * carrier and one of a single item (their difference is the gas of the others). A contract
   * without batch mints (deployed before them) carries one item per transaction.
   */
  private async evmCapacity(
    network: EvmNetworkDefinition,
    entries: OperationEntity[],
  ): Promise<number> {
    const provider = this.evm.provider(network);
    const signer = entries[0].signer;
    const sample = entries.slice(0, SAMPLE_ITEMS);
    let one: bigint;
    let many: bigint;
    try {
      [one, many] = await Promise.all([
        planEvmCall(provider, signer, newCarrier(sample.slice(0, 1)).intent),
        planEvmCall(provider, signer, newCarrier(sample).intent),
      ]).then(([a, b]) => [a.gasLimit, b.gasLimit]);
    } catch (error) {
      if (lacksFunction(error)) return 1;
      // An entry of the sample the chain refuses: carriers of a size safe under any gas cap
      // (their own estimates find the bad entry, and their splits isolate it).
      return UNPRICED_ITEMS_PER_CARRIER;
    }
    const perItem = sample.length > 1 ? (many - one) / BigInt(sample.length - 1) : one;
    const block = await provider.getBlock('latest');
    const percent = BigInt(this.config.evm.airdropBlockGasPercent);
    const budget = min((block!.gasLimit * percent) / 100n, TRANSACTION_GAS_CAP);
    const fits =
      perItem > 0n ? Number((budget - (one - perItem)) / perItem) : MAX_ITEMS_PER_CARRIER;
    return Math.max(1, Math.min(fits, MAX_ITEMS_PER_CARRIER));
  }
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** Another packer took some of the entries first: this carrier is not stored. */
class EntriesTaken extends Error {}
