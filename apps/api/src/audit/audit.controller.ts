import { Controller, Get, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiPropertyOptional, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { ok, type SuccessEnvelope } from '@app/common';
import { AuditReader } from '@app/domain';
import { AccountId, ApiKeyOrSessionAuth } from '../auth/auth.decorators';
import { SESSION_SCHEME } from '../http/docs/openapi';
import { presentAuditPage, type AuditPageView } from './audit.presenter';
import { AUDIT_PAGE_VIEW } from './audit.schema';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { PageLimitQuery } from '../http/page-limit.query';

export class AuditPageQuery extends PageLimitQuery {
  /** A previous page's `next_cursor`. */
  @ApiPropertyOptional({ description: "A previous page's `next_cursor`" })
  @IsOptional()
  @Matches(/^[1-9][0-9]{0,17}$/, { message: 'cursor must be a next_cursor of this endpoint' })
  cursor?: string;
}

/** The account's own audit trail (contract: "api-key or session, in the envelope"). */
@ApiTags('account')
@Controller('account')
export class AuditController {
  constructor(private readonly reader: AuditReader) {}

  @ApiSecurity('api-key')
  @ApiCookieAuth(SESSION_SCHEME)
  @ApiKeyOrSessionAuth()
  @Get('audit')
  @ApiEnvelope(
    'The account audit trail, newest first, with its hash chain',
    AUDIT_PAGE_VIEW,
    [400, 401],
  )
  async list(
    @AccountId() accountId: string,
    @Query() query: AuditPageQuery,
  ): Promise<SuccessEnvelope<AuditPageView>> {
    const page = await this.reader.page(accountId, query.limit ?? 20, query.cursor);
    return ok(presentAuditPage(page), 'Audit trail.');
  }
}
