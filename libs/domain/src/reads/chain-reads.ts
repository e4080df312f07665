import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError, LogContext } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  ChainRegistry,
  EvmAdapter,
  SolanaAdapter,
  asEvm,
  readNftOwner,
  readSolanaItemHolder,
  readSolanaMint,
  readTokenSupply,
  type NetworkDefinition,
  type SolanaNetworkDefinition,
} from '@app/chains';
import { SettlementChannel } from '@app/queue';
import { readSettledMessage } from '../operations/settlement';
import type { OperationView } from '../operations/operation-view';
import { ChainReadCache, type Fresh, type ReadKey } from './chain-read-cache';
import { balancesGroup, groupOf, settledGroups } from './read-groups';

/** A Solana item as its chain shows it: burned (supply 0 or no mint), else who holds it. */
export interface SolanaItemState {
  burned: boolean;
  holder: string | null;
}

/**
 * What only the chain knows (live balances, supplies, an item's current owner), read through
 * one cache per process. The cache keeps values only once this process hears the settlement
 * channel, so that one of our operations settling drops what it changed on every API instance
 * at once; a change made outside the service shows within CHAIN_READ_CACHE_TTL_MS. An RPC that
 * does not answer is a 502. The same cache keeps what Postgres holds of an asset that only our
 * own settlements change (`settledState`).
 */
@Injectable()
export class ChainReads {
  private readonly logger = new Logger(ChainReads.name);
  private readonly cache: ChainReadCache;
  private hearing?: Promise<void>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly chains: ChainRegistry,
    private readonly evm: EvmAdapter,
    private readonly solana: SolanaAdapter,
    private readonly settlements: SettlementChannel,
  ) {
    this.cache = new ChainReadCache(config.api.chainReadCacheTtlMs);
  }

  /** A token's total supply (base units). */
  tokenSupply(network: NetworkDefinition, address: string, live: boolean): Promise<Fresh<bigint>> {
    return this.read(network, { group: groupOf(network, address), read: 'supply' }, live, () =>
      network.family === 'evm'
        ? readTokenSupply(this.evm.provider(asEvm(network)), address)
        : this.solanaSupply(network, address),
    );
  }

  /** The holder of an EVM collection's token id; null when it does not exist (burned). */
  evmItemOwner(
    network: NetworkDefinition,
    collection: string,
    tokenId: string,
    live: boolean,
  ): Promise<Fresh<string | null>> {
    const key = { group: groupOf(network, collection), read: `owner|${tokenId}` };
    return this.read(network, key, live, () =>
      readNftOwner(this.evm.provider(asEvm(network)), collection, tokenId),
    );
  }

  /** A Solana item (its own mint): burned or not, and who holds it (`expectedOwner` first). */
  solanaItem(
    network: NetworkDefinition,
    mint: string,
    expectedOwner: string,
    live: boolean,
  ): Promise<Fresh<SolanaItemState>> {
    const key = { group: groupOf(network, mint), read: 'item' };
    return this.read(network, key, live, async () => {
      const definition = network as SolanaNetworkDefinition;
      const found = await readSolanaItemHolder(this.solana, definition, mint, expectedOwner);
      const burned = !found.mint || found.mint.supply === 0n;
      return { burned, holder: burned ? null : found.holder };
    });
  }

  /** A wallet's native balance (base units). */
  nativeBalance(
    network: NetworkDefinition,
    address: string,
    live: boolean,
  ): Promise<Fresh<bigint>> {
    // Every operation moves its signer's balance (fees): all balances of a network are one group.
    const key = { group: balancesGroup(network.network), read: address };
    return this.read(network, key, live, () =>
      this.chains.adapter(network.family).getNativeBalance(network, address),
    );
  }

  /**
   * What Postgres holds of an asset that changes only when one of our operations on it
   * settles (a collection's minted count, an item's row: written in the statement that
   * confirms the operation): kept in the asset's group, so that the settlement drops it on
   * every instance, by the chain reads' rules (the TTL bounds a lost message; `live` reads
   * now). Its errors are the database's own, not a 502.
   */
  async settledState<T>(
    asset: { network: string; address: string },
    read: string,
    live: boolean,
    load: () => Promise<T>,
  ): Promise<T> {
    this.hearSettlements();
    const key = { group: groupOf(asset, asset.address), read: `db|${read}` };
    return (await this.cache.read(key, load, live)).value;
  }

  /** Drops what a settled operation may have changed (its network's assets and balances). */
  forgetSettled(view: OperationView): void {
    this.cache.invalidate(settledGroups(view));
  }

  private async read<T>(
    network: NetworkDefinition,
    key: ReadKey,
    live: boolean,
    load: () => Promise<T>,
  ): Promise<Fresh<T>> {
    this.hearSettlements();
    return this.cache.read(key, load, live).catch((error: unknown) => {
      if (error instanceof AppError) throw error;
      throw new AppError('BAD_GATEWAY', `The ${network.network} RPC did not answer; try again.`);
    });
  }

  private async solanaSupply(network: SolanaNetworkDefinition, address: string): Promise<bigint> {
    const mint = await readSolanaMint(this.solana, network, address);
    if (!mint)
      throw new AppError('BAD_GATEWAY', `The token ${address} is not on ${network.network}.`);
    return mint.supply;
  }

  /** The cache keeps values once settlements are heard; until then every read is live. */
  private hearSettlements(): void {
    this.hearing ??= LogContext.outside(() =>
      this.settlements.listen((message) => {
        const settlement = readSettledMessage(message)?.settlement;
        if (settlement) this.forgetSettled(settlement.view);
      }),
    ).then(
      () => {
        this.cache.storing = true;
      },
      (error: unknown) => {
        this.logger.warn(`Not caching chain reads: settlements unheard (${String(error)})`);
        this.hearing = undefined;
      },
    );
  }
}
