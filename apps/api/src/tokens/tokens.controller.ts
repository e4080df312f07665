import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ok, type SuccessEnvelope } from '@app/common';
import { TokenQueries, TokenService, type OperationView } from '@app/domain';
import { AccountId } from '../auth/auth.decorators';
import { ApiEnvelope, ApiOperationWrite } from '../http/docs/api-envelope.decorator';
import { wantsLiveRead } from '../http/freshness';
import { OperationResponder } from '../operations/operation-responder';
import {
  AssetQueryDto,
  BurnTokenDto,
  CreateTokenDto,
  MintTokenDto,
  TransferTokenDto,
} from './dto/token.dto';
import { TOKEN_VIEW } from './token.schema';
import { presentToken, type TokenView } from './token.presenter';

@ApiTags('tokens')
@ApiSecurity('api-key')
@Controller('tokens')
export class TokensController {
  constructor(
    private readonly tokens: TokenService,
    private readonly queries: TokenQueries,
    private readonly responder: OperationResponder,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperationWrite('The token, created by the managed wallet, which holds the initial supply')
  async create(
    @AccountId() accountId: string,
    @Body() body: CreateTokenDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<OperationView>> {
    const submitted = await this.tokens.create(
      accountId,
      body,
      this.responder.idempotency(request, body),
    );
    return this.responder.respond(request, reply, submitted, 'Token created.');
  }

  @Post(':mint_address/mint')
  @HttpCode(200)
  @ApiOperationWrite('Supply added (to the managed wallet unless `recipient`)')
  async mint(
    @AccountId() accountId: string,
    @Param('mint_address') mint: string,
    @Body() body: MintTokenDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<OperationView>> {
    const submitted = await this.tokens.mint(
      accountId,
      mint,
      body,
      this.responder.idempotency(request, body),
    );
    return this.responder.respond(request, reply, submitted, 'Tokens minted.');
  }

  @Post(':mint_address/burn')
  @HttpCode(200)
  @ApiOperationWrite('Burned from the managed wallet')
  async burn(
    @AccountId() accountId: string,
    @Param('mint_address') mint: string,
    @Body() body: BurnTokenDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<OperationView>> {
    const submitted = await this.tokens.burn(
      accountId,
      mint,
      body,
      this.responder.idempotency(request, body),
    );
    return this.responder.respond(request, reply, submitted, 'Tokens burned.');
  }

  @Post(':mint_address/transfer')
  @HttpCode(200)
  @ApiOperationWrite('Sent from the managed wallet to `recipient`')
  async transfer(
    @AccountId() accountId: string,
    @Param('mint_address') mint: string,
    @Body() body: TransferTokenDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<OperationView>> {
    const submitted = await this.tokens.transfer(
      accountId,
      mint,
      body,
      this.responder.idempotency(request, body),
    );
    return this.responder.respond(request, reply, submitted, 'Tokens transferred.');
  }

  @Get(':mint_address')
  @ApiHeader({
    name: 'Cache-Control',
    required: false,
    description: '`no-cache`: read the chain now',
  })
  @ApiEnvelope('The token, with its supply as of `as_of`', TOKEN_VIEW, [400, 401, 404, 502])
  async get(
    @AccountId() accountId: string,
    @Param('mint_address') mint: string,
    @Query() query: AssetQueryDto,
    @Req() request: FastifyRequest,
  ): Promise<SuccessEnvelope<TokenView>> {
    const read = await this.queries.get(accountId, mint, query.network, wantsLiveRead(request));
    return ok(presentToken(read), 'Token.');
  }
}
