import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiPropertyOptional, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ok, type SuccessEnvelope } from '@app/common';
import { APP_CONFIG, type AppConfig, type Network } from '@app/config';
import { AccountAssets } from '@app/domain';
import { AccountId, ApiKeyOrSessionAuth } from '../auth/auth.decorators';
import { SESSION_COOKIE } from '../auth/session-cookie';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { IsOptionalNetwork } from '../http/network.validator';
import { ACCOUNT_ASSETS_PAGE, COLLECTION_ITEMS_PAGE } from './account-assets.schema';
import { PageLimitQuery } from '../http/page-limit.query';
import {
  presentAccountAsset,
  presentCollectionItem,
  type AccountAssetView,
  type CollectionItemView,
} from './account-assets.presenter';

const KINDS = ['token', 'collection'] as const;

export class ItemPageQuery extends PageLimitQuery {
  @IsOptionalNetwork()
  network?: Network;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class AssetPageQuery extends ItemPageQuery {
  @ApiPropertyOptional({ enum: KINDS })
  @IsOptional()
  @IsIn(KINDS, { message: 'kind must be one of: token, collection' })
  kind?: (typeof KINDS)[number];
}

/** The console's assets: the account's tokens and collections, and a collection's items. */
@ApiTags('account')
@ApiSecurity('api-key')
@ApiCookieAuth(SESSION_COOKIE)
@ApiKeyOrSessionAuth()
@Controller('account/assets')
export class AccountAssetsController {
  constructor(
    private readonly assets: AccountAssets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiEnvelope(
    'The account tokens and collections, newest first, paged',
    ACCOUNT_ASSETS_PAGE,
    [400, 401],
  )
  async list(
    @AccountId() accountId: string,
    @Query() query: AssetPageQuery,
  ): Promise<SuccessEnvelope<{ assets: AccountAssetView[]; next_cursor: string | null }>> {
    const network = query.network === 'evm' ? this.config.chains.defaultEvmNetwork : query.network;
    const page = await this.assets.list(
      accountId,
      { kind: query.kind, network },
      query.limit ?? 20,
      query.cursor,
    );
    return ok(
      { assets: page.entries.map(presentAccountAsset), next_cursor: page.nextCursor },
      'Assets.',
    );
  }

  @Get(':address/items')
  @ApiEnvelope(
    'A collection’s items, newest first, each with the operations that made and changed it',
    COLLECTION_ITEMS_PAGE,
    [400, 401, 404],
  )
  async items(
    @AccountId() accountId: string,
    @Param('address') address: string,
    @Query() query: ItemPageQuery,
  ): Promise<SuccessEnvelope<{ items: CollectionItemView[]; next_cursor: string | null }>> {
    const page = await this.assets.items(
      accountId,
      address,
      query.network,
      query.limit ?? 20,
      query.cursor,
    );
    return ok(
      { items: page.entries.map(presentCollectionItem), next_cursor: page.nextCursor },
      'Collection items.',
    );
  }
}
