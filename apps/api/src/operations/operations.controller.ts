import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ok, type SuccessEnvelope } from '@app/common';
import { OperationReader, type OperationView } from '@app/domain';
import { AccountId, SessionAuth } from '../auth/auth.decorators';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { PageLimitQuery } from '../http/page-limit.query';

export class OperationPageQuery extends PageLimitQuery {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

@ApiTags('operations')
@Controller()
export class OperationsController {
  constructor(private readonly reader: OperationReader) {}

  @ApiSecurity('api-key')
  @Get('operations/:operation_id')
  @ApiEnvelope('The status and result of a write', [401, 404])
  async get(
    @AccountId() accountId: string,
    @Param('operation_id') id: string,
  ): Promise<SuccessEnvelope<OperationView>> {
    return ok(await this.reader.get(accountId, id), 'Operation.');
  }

  /** The dashboard's list: newest first, paged by an opaque cursor. */
  @SessionAuth()
  @Get('account/operations')
  @ApiEnvelope('The account operations, newest first', [400, 401])
  async list(
    @AccountId() accountId: string,
    @Query() query: OperationPageQuery,
  ): Promise<SuccessEnvelope<{ operations: OperationView[]; next_cursor: string | null }>> {
    return ok(await this.reader.list(accountId, query.limit ?? 20, query.cursor), 'Operations.');
  }
}
