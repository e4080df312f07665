import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiPropertyOptional, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import {
  ok,
  OPERATION_KINDS,
  OPERATION_STATUSES,
  type OperationKind,
  type OperationStatus,
  type SuccessEnvelope,
} from '@app/common';
import { APP_CONFIG, type AppConfig, type Network } from '@app/config';
import { OperationDetailReader, OperationReader, type OperationView } from '@app/domain';
import { AccountId, ApiKeyOrSessionAuth, SessionAuth } from '../auth/auth.decorators';
import { SESSION_SCHEME } from '../http/docs/openapi';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { IsOptionalNetwork } from '../http/network.validator';
import { PageLimitQuery } from '../http/page-limit.query';
import { presentOperationDetail, type OperationDetailView } from './operation-detail.presenter';
import { OPERATION_DETAIL_VIEW, OPERATION_PAGE } from './operation-detail.schema';
import { OPERATION_VIEW } from './operation.schema';

export class OperationPageQuery extends PageLimitQuery {
  @ApiPropertyOptional({ description: "A previous page's `next_cursor`" })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @ApiPropertyOptional({ enum: OPERATION_STATUSES })
  @IsOptional()
  @IsIn(OPERATION_STATUSES, { message: `status must be one of: ${OPERATION_STATUSES.join(', ')}` })
  status?: OperationStatus;

  @IsOptionalNetwork()
  network?: Network;

  @ApiPropertyOptional({ enum: OPERATION_KINDS })
  @IsOptional()
  @IsIn(OPERATION_KINDS, { message: `kind must be one of: ${OPERATION_KINDS.join(', ')}` })
  kind?: OperationKind;
}

@ApiTags('operations')
@Controller()
export class OperationsController {
  constructor(
    private readonly reader: OperationReader,
    private readonly details: OperationDetailReader,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @ApiSecurity('api-key')
  @Get('operations/:operation_id')
  @ApiEnvelope('The status and result of a write', OPERATION_VIEW, [401, 404])
  async get(
    @AccountId() accountId: string,
    @Param('operation_id') id: string,
  ): Promise<SuccessEnvelope<OperationView>> {
    return ok(await this.reader.get(accountId, id), 'Operation.');
  }

  /** The dashboard's list: newest first, paged by an opaque cursor, optionally narrowed. */
  @ApiCookieAuth(SESSION_SCHEME)
  @SessionAuth()
  @Get('account/operations')
  @ApiEnvelope('The account operations, newest first', OPERATION_PAGE, [400, 401])
  async list(
    @AccountId() accountId: string,
    @Query() query: OperationPageQuery,
  ): Promise<SuccessEnvelope<{ operations: OperationView[]; next_cursor: string | null }>> {
    const { status, kind } = query;
    const network = query.network === 'evm' ? this.config.chains.defaultEvmNetwork : query.network;
    const page = await this.reader.list(accountId, query.limit ?? 20, query.cursor, {
      status,
      kind,
      network,
    });
    return ok(page, 'Operations.');
  }

  @ApiSecurity('api-key')
  @ApiCookieAuth(SESSION_SCHEME)
  @ApiKeyOrSessionAuth()
  @Get('account/operations/:operation_id')
  @ApiEnvelope(
    'One operation with its request, every transaction it signed and its events',
    OPERATION_DETAIL_VIEW,
    [401, 404],
  )
  async detail(
    @AccountId() accountId: string,
    @Param('operation_id') id: string,
  ): Promise<SuccessEnvelope<OperationDetailView>> {
    return ok(presentOperationDetail(await this.details.get(accountId, id)), 'Operation detail.');
  }
}
