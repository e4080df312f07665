import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiHeader, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ok, type SuccessEnvelope } from '@app/common';
import { WalletQueries, WalletService } from '@app/domain';
import { AccountId } from '../auth/auth.decorators';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { wantsLiveRead } from '../http/freshness';
import { CreateWalletDto } from './dto/create-wallet.dto';
import { WalletQueryDto } from './dto/wallet-query.dto';
import { CREATED_WALLET_VIEW, WALLET_VIEW } from './wallet.schema';
import {
  presentCreatedWallet,
  presentWallet,
  type CreatedWalletView,
  type WalletView,
} from './wallet.presenter';

@ApiTags('wallets')
@ApiSecurity('api-key')
@Controller('wallets')
export class WalletsController {
  constructor(
    private readonly wallets: WalletService,
    private readonly queries: WalletQueries,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiEnvelope(
    'A new wallet; `secret_key` is returned once and never stored',
    CREATED_WALLET_VIEW,
    [400, 401],
  )
  async create(
    @AccountId() accountId: string,
    @Body() body: CreateWalletDto,
  ): Promise<SuccessEnvelope<CreatedWalletView>> {
    return ok(
      presentCreatedWallet(await this.wallets.create(accountId, body.network)),
      'Wallet created. Store secret_key now: the service does not keep it.',
    );
  }

  @Get(':wallet_address')
  @ApiHeader({
    name: 'Cache-Control',
    required: false,
    description: '`no-cache`: read the chain now',
  })
  @ApiEnvelope('The wallet and its native balance as of `as_of`', WALLET_VIEW, [400, 401, 502])
  async get(
    @AccountId() accountId: string,
    @Param('wallet_address') address: string,
    @Query() query: WalletQueryDto,
    @Req() request: FastifyRequest,
  ): Promise<SuccessEnvelope<WalletView>> {
    const read = await this.queries.get(accountId, address, query.network, wantsLiveRead(request));
    return ok(presentWallet(read), 'Wallet.');
  }
}
