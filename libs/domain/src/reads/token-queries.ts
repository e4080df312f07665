import { Injectable } from '@nestjs/common';
import type { Network } from '@app/config';
import type { AssetEntity } from '@app/database';
import { AssetLocator } from '../assets/asset-locator';
import { ChainReads } from './chain-reads';
import type { Fresh } from './chain-read-cache';

export interface TokenRead {
  token: AssetEntity;
  /** The live total supply, in base units. */
  supply: Fresh<bigint>;
}

/** A token: its name, symbol, decimals and metadata from Postgres, its supply from its chain. */
@Injectable()
export class TokenQueries {
  constructor(
    private readonly locator: AssetLocator,
    private readonly chainReads: ChainReads,
  ) {}

  async get(
    accountId: string,
    mint: string,
    network: Network | undefined,
    live: boolean,
  ): Promise<TokenRead> {
    const found = await this.locator.ownAsset(accountId, 'token', mint, network);
    const supply = await this.chainReads.tokenSupply(found.network, found.asset.address, live);
    return { token: found.asset, supply };
  }
}
