import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ok, type SuccessEnvelope } from '@app/common';
import { WalletService, type CreatedWalletView, type WalletView } from '@app/domain';
import { AccountId } from '../auth/auth.decorators';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { CreateWalletDto } from './dto/create-wallet.dto';
import { WalletQueryDto } from './dto/wallet-query.dto';

@ApiTags('wallets')
@ApiSecurity('api-key')
@Controller('wallets')
export class WalletsController {
  constructor(private readonly wallets: WalletService) {}

  @Post()
  @HttpCode(200)
  @ApiEnvelope('A new wallet; `secret_key` is returned once and never stored', [400, 401])
  async create(
    @AccountId() accountId: string,
    @Body() body: CreateWalletDto,
  ): Promise<SuccessEnvelope<CreatedWalletView>> {
    return ok(
      await this.wallets.create(accountId, body.network),
      'Wallet created. Store secret_key now: the service does not keep it.',
    );
  }

  @Get(':wallet_address')
  @ApiEnvelope('The wallet and its live native balance', [400, 401, 502])
  async get(
    @AccountId() accountId: string,
    @Param('wallet_address') address: string,
    @Query() query: WalletQueryDto,
  ): Promise<SuccessEnvelope<WalletView>> {
    return ok(await this.wallets.get(accountId, address, query.network), 'Wallet.');
  }
}
