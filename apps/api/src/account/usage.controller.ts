import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiPropertyOptional, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ok, type SuccessEnvelope } from '@app/common';
import { APP_CONFIG, type AppConfig, type Network } from '@app/config';
import { UsageReader, type UsageWindowName } from '@app/domain';
import { AccountId, ApiKeyOrSessionAuth } from '../auth/auth.decorators';
import { SESSION_SCHEME } from '../http/docs/openapi';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { presentUsage, type UsageView } from './usage.presenter';
import { USAGE_VIEW } from './usage.schema';
import { IsOptionalNetwork } from '../http/network.validator';

const WINDOWS: UsageWindowName[] = ['day', 'week'];

export class UsageQuery {
  @ApiPropertyOptional({ enum: WINDOWS, default: 'day' })
  @IsOptional()
  @IsIn(WINDOWS, { message: `window must be one of: ${WINDOWS.join(', ')}` })
  window?: UsageWindowName;

  @IsOptionalNetwork()
  network?: Network;
}

/** The account's usage chart: operations per hour by status, confirmation latency, pending now. */
@ApiTags('account')
@Controller('account')
export class UsageController {
  constructor(
    private readonly usage: UsageReader,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @ApiSecurity('api-key')
  @ApiCookieAuth(SESSION_SCHEME)
  @ApiKeyOrSessionAuth()
  @Get('usage')
  @ApiEnvelope(
    'Operations per hour (UTC) over the last day or week by status now, acceptance-to-confirmation latency percentiles, and the operations pending now whatever their age (by network)',
    USAGE_VIEW,
    [400, 401],
  )
  async read(
    @AccountId() accountId: string,
    @Query() query: UsageQuery,
  ): Promise<SuccessEnvelope<UsageView>> {
    const network = query.network === 'evm' ? this.config.chains.defaultEvmNetwork : query.network;
    const usage = await this.usage.read(accountId, query.window ?? 'day', network);
    return ok(presentUsage(usage), 'Usage.');
  }
}
