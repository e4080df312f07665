import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiPropertyOptional, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ok, type SuccessEnvelope } from '@app/common';
import { BatchReader, type BatchView } from '@app/domain';
import { AccountId, ApiKeyOrSessionAuth, SessionAuth } from '../auth/auth.decorators';
import { SESSION_SCHEME } from '../http/docs/openapi';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { PageLimitQuery, pageLimitQueryUpTo } from '../http/page-limit.query';
import { presentBatchItem, type BatchItemView } from './batch-item.presenter';
import { BATCH_ITEM_PAGE, BATCH_PAGE, BATCH_VIEW } from './batch.schema';

const ITEM_STATUSES = ['queued', 'submitted', 'confirmed', 'failed'] as const;

export class BatchItemsQuery extends pageLimitQueryUpTo(1_000) {
  @ApiPropertyOptional({ description: "A previous page's `next_cursor`" })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @ApiPropertyOptional({ enum: ITEM_STATUSES })
  @IsOptional()
  @IsIn(ITEM_STATUSES, { message: `status must be one of: ${ITEM_STATUSES.join(', ')}` })
  status?: (typeof ITEM_STATUSES)[number];
}

export class BatchPageQuery extends PageLimitQuery {
  @ApiPropertyOptional({ description: "A previous page's `next_cursor`" })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

/** Airdrop batches: where each stands, and each of its entries (own account only, else 404). */
@ApiTags('airdrops')
@Controller()
export class BatchesController {
  constructor(private readonly reader: BatchReader) {}

  @ApiSecurity('api-key')
  @ApiCookieAuth(SESSION_SCHEME)
  @ApiKeyOrSessionAuth()
  @Get('batches/:batch_id')
  @ApiEnvelope('The batch, with its entries counted by status', BATCH_VIEW, [401, 404])
  async get(
    @AccountId() accountId: string,
    @Param('batch_id') id: string,
  ): Promise<SuccessEnvelope<BatchView>> {
    return ok(await this.reader.get(accountId, id), 'Batch.');
  }

  @ApiSecurity('api-key')
  @ApiCookieAuth(SESSION_SCHEME)
  @ApiKeyOrSessionAuth()
  @Get('batches/:batch_id/items')
  @ApiEnvelope(
    'The batch entries by index, each with its operation',
    BATCH_ITEM_PAGE,
    [400, 401, 404],
  )
  async items(
    @AccountId() accountId: string,
    @Param('batch_id') id: string,
    @Query() query: BatchItemsQuery,
  ): Promise<SuccessEnvelope<{ items: BatchItemView[]; next_cursor: string | null }>> {
    const page = await this.reader.items(accountId, id, {
      status: query.status,
      limit: query.limit ?? 100,
      cursor: query.cursor,
    });
    return ok(
      {
        items: page.members.map((member) => presentBatchItem(page.batch, member)),
        next_cursor: page.nextCursor,
      },
      'Batch entries.',
    );
  }

  /** The console's list: newest first. */
  @ApiCookieAuth(SESSION_SCHEME)
  @SessionAuth()
  @Get('account/batches')
  @ApiEnvelope('The account airdrops, newest first', BATCH_PAGE, [400, 401])
  async list(
    @AccountId() accountId: string,
    @Query() query: BatchPageQuery,
  ): Promise<SuccessEnvelope<{ batches: BatchView[]; next_cursor: string | null }>> {
    const page = await this.reader.list(accountId, query.limit ?? 20, query.cursor);
    return ok({ batches: page.batches, next_cursor: page.nextCursor }, 'Batches.');
  }
}
