import { Body, Controller, HttpCode, Param, Post, Req, Res, applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ok, type SuccessEnvelope } from '@app/common';
import {
  AirdropService,
  BatchReader,
  batchView,
  type AcceptedBatch,
  type BatchView,
} from '@app/domain';
import { AccountId } from '../auth/auth.decorators';
import { ApiErrors, envelopeOf } from '../http/docs/api-envelope.decorator';
import { OperationResponder } from '../operations/operation-responder';
import { BATCH_VIEW } from './batch.schema';
import { NftAirdropDto, TokenAirdropDto } from './dto/airdrop.dto';

/** The documentation of an airdrop route: its key header, the 202 with the batch, its errors. */
const ApiAirdrop = (): MethodDecorator =>
  applyDecorators(
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Covers the whole request: the same request again returns the first batch ' +
        '(`idempotent-replayed: true`) and stores nothing; another request with it is 409.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    }),
    ApiResponse({
      status: 202,
      description:
        'Accepted: every entry is an operation of its own; follow the batch at GET /batches/{batch_id}',
      schema: envelopeOf(BATCH_VIEW),
    }),
    ApiErrors([400, 401, 403, 404, 409]),
  );

/**
 * Airdrops (contract, "Airdrops"): up to 10,000 mints in one request, checked all or nothing,
 * answered 202 with the batch at once (`Prefer` does not make them synchronous).
 */
@ApiTags('airdrops')
@ApiSecurity('api-key')
@Controller()
export class AirdropsController {
  constructor(
    private readonly airdrops: AirdropService,
    private readonly reader: BatchReader,
    private readonly responder: OperationResponder,
  ) {}

  @Post('tokens/:mint_address/airdrop')
  @HttpCode(202)
  @ApiAirdrop()
  async tokens(
    @AccountId() accountId: string,
    @Param('mint_address') mint: string,
    @Body() body: TokenAirdropDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<BatchView>> {
    const idempotency = this.responder.idempotency(request, body);
    return this.answer(reply, await this.airdrops.tokens(accountId, mint, body, idempotency));
  }

  @Post('nfts/:mint_address/airdrop')
  @HttpCode(202)
  @ApiAirdrop()
  async nfts(
    @AccountId() accountId: string,
    @Param('mint_address') collection: string,
    @Body() body: NftAirdropDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SuccessEnvelope<BatchView>> {
    const idempotency = this.responder.idempotency(request, body);
    return this.answer(reply, await this.airdrops.nfts(accountId, collection, body, idempotency));
  }

  private async answer(
    reply: FastifyReply,
    accepted: AcceptedBatch,
  ): Promise<SuccessEnvelope<BatchView>> {
    const { batch } = accepted;
    // A batch just stored has all its entries queued: only a replay's is read again.
    let view: BatchView;
    if (accepted.replayed) {
      void reply.header('idempotent-replayed', 'true');
      view = await this.reader.get(batch.accountId, batch.id);
    } else {
      view = batchView(batch, { queued: batch.total, submitted: 0, confirmed: 0, failed: 0 });
    }
    return ok(
      view,
      `Accepted: ${view.total} entries. Follow them at GET /batches/${view.batch_id}.`,
    );
  }
}
