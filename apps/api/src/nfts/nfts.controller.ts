import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ok, type SuccessEnvelope } from '@app/common';
import { NftQueries, NftService, type OperationView } from '@app/domain';
import { AccountId } from '../auth/auth.decorators';
import { ApiEnvelope, ApiOperationWrite } from '../http/docs/api-envelope.decorator';
import { wantsLiveRead } from '../http/freshness';
import { OperationResponder } from '../operations/operation-responder';
import {
  BurnNftDto,
  CreateCollectionDto,
  MintNftDto,
  NftQueryDto,
  TransferNftDto,
} from './dto/nft.dto';
import { NFT_VIEW } from './nft.schema';
import { presentNft, type CollectionView, type ItemView } from './nft.presenter';

@ApiTags('nfts')
@ApiSecurity('api-key')
@Controller('nfts')
export class NftsController {
  constructor(
    private readonly nfts: NftService,
    private readonly queries: NftQueries,
    private readonly responder: OperationResponder,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperationWrite('The collection: `mint_address`, `metadata_uri`, `tx`, `created_at`')
  async create(
    @AccountId() accountId: string,
    @Body() body: CreateCollectionDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<OperationView>> {
    if (
      body.max_supply !== undefined &&
      body.maxSupply !== undefined &&
      body.max_supply !== body.maxSupply
    ) {
      throw AppError.badRequest('max_supply and maxSupply differ; send one of them.');
    }
    const input = { ...body, max_supply: body.max_supply ?? body.maxSupply };
    const submitted = await this.nfts.createCollection(
      accountId,
      input,
      this.responder.idempotency(request, body),
    );
    return this.responder.respond(request, reply, submitted, 'NFT collection created.');
  }

  @Post(':mint_address/mint')
  @HttpCode(200)
  @ApiOperationWrite('An item of the collection (to the managed wallet unless `recipient`)')
  async mint(
    @AccountId() accountId: string,
    @Param('mint_address') collection: string,
    @Body() body: MintNftDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<OperationView>> {
    const submitted = await this.nfts.mint(
      accountId,
      collection,
      body,
      this.responder.idempotency(request, body),
    );
    return this.responder.respond(request, reply, submitted, 'NFT minted.');
  }

  @Post(':mint_address/transfer')
  @HttpCode(200)
  @ApiOperationWrite('The item, sent from the managed wallet to `recipient`')
  async transfer(
    @AccountId() accountId: string,
    @Param('mint_address') address: string,
    @Body() body: TransferNftDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<OperationView>> {
    const submitted = await this.nfts.transfer(
      accountId,
      address,
      body,
      this.responder.idempotency(request, body),
    );
    return this.responder.respond(request, reply, submitted, 'NFT transferred.');
  }

  @Post(':mint_address/burn')
  @HttpCode(200)
  @ApiOperationWrite('The item, burned by the managed wallet holding it')
  async burn(
    @AccountId() accountId: string,
    @Param('mint_address') address: string,
    @Body() body: BurnNftDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<OperationView>> {
    const input = { network: body.network, token_id: body.tokenId };
    const submitted = await this.nfts.burn(
      accountId,
      address,
      input,
      this.responder.idempotency(request, body),
    );
    return this.responder.respond(request, reply, submitted, 'NFT burned.');
  }

  @Get(':mint_address')
  @ApiHeader({
    name: 'Cache-Control',
    required: false,
    description: '`no-cache`: read the chain now',
  })
  @ApiEnvelope(
    'A collection, or with `token_id` one of its items (its owner as of `as_of`)',
    NFT_VIEW,
    [400, 401, 404, 502],
  )
  async get(
    @AccountId() accountId: string,
    @Param('mint_address') address: string,
    @Query() query: NftQueryDto,
    @Req() request: FastifyRequest,
  ): Promise<SuccessEnvelope<CollectionView | ItemView>> {
    const live = wantsLiveRead(request);
    const read = await this.queries.get(accountId, address, query.token_id, query.network, live);
    return ok(presentNft(read), 'NFT.');
  }
}
