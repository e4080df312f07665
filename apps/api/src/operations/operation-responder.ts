import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, ok, type SuccessEnvelope } from '@app/common';
import { isDatabaseUnavailable } from '@app/database';
import {
  ChainReads,
  SettlementWaiter,
  settlementOf,
  type IdempotencyRequest,
  type OperationView,
  type Settlement,
  type Submitted,
} from '@app/domain';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The contract's "Sync and async": a write waits for its operation to settle (up to
 * SYNC_WAIT_MS) and answers 200 with the result or the error envelope of its failure; unless
 * it is still going, or the client asked `Prefer: respond-async`, then 202 with the operation.
 */
@Injectable()
export class OperationResponder {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly waiter: SettlementWaiter,
    private readonly chainReads: ChainReads,
  ) {}

  /** The Idempotency-Key of the request, bound to its method, path and body. */
  idempotency(request: FastifyRequest, body: unknown): IdempotencyRequest | undefined {
    const header = request.headers['idempotency-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (key === undefined) return undefined;
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw AppError.badRequest('Idempotency-Key must be 1 to 255 printable ASCII characters.');
    }
    return { key, fingerprint: { method: request.method, path: request.url.split('?')[0], body } };
  }

  async respond(
    request: FastifyRequest,
    reply: FastifyReply,
    submitted: Submitted,
    done: string,
  ): Promise<SuccessEnvelope<OperationView>> {
    if (submitted.replayed) void reply.header('idempotent-replayed', 'true');
    const preferAsync = /\brespond-async\b/i.test(String(request.headers.prefer ?? ''));
    const { id } = submitted.operation;
    const settlement = preferAsync
      ? settlementOf(submitted.operation)
      : await this.settled(submitted);
    // This instance may have learnt it from Postgres before the settlement channel's news: the
    // client's next read here must not see the chain as it was before.
    if (settlement.status === 'confirmed' || settlement.status === 'failed') {
      this.chainReads.forgetSettled(settlement.view);
    }
    if (settlement.error) throw new AppError(settlement.error.code, settlement.error.message);
    if (settlement.status === 'confirmed') return ok(settlement.view, done);
    void reply.status(202);
    if (preferAsync) void reply.header('preference-applied', 'respond-async');
    return ok(
      settlement.view,
      `Accepted: the operation is ${settlement.status}. Follow it at GET /operations/${id}.`,
    );
  }

  /**
   * The operation once settled or as it stands after SYNC_WAIT_MS. As stored, at once, when no
   * worker can take it yet (Redis did not take the job) or when Postgres goes away during the
   * wait: it is accepted either way, and a 503 would tell the client to send it again.
   */
  private async settled(submitted: Submitted): Promise<Settlement> {
    const { operation, replayed, enqueued } = submitted;
    if (!enqueued) return settlementOf(operation);
    try {
      return await this.waiter.wait(operation.id, this.config.operations.syncWaitMs, !replayed);
    } catch (error) {
      if (isDatabaseUnavailable(error)) return settlementOf(operation);
      throw error;
    }
  }
}
