import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BullBoardAdapter } from '@bull-board/fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { AppError, METRICS, metricsRegistry } from '@app/common';
import { CONCRETE_NETWORKS, type AppConfig } from '@app/config';
import { AccountBacklog, OperationQueue, refreshAccountGauges } from '@app/queue';
import { errorEnvelope } from '../http/error-envelope';
import { AuthThrottle } from '../rate-limit/auth-throttle';

export const QUEUE_BOARD_PATH = '/admin/queues';
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * The operators' routes, behind HTTP Basic credentials from configuration (ADMIN_USER /
 * ADMIN_PASSWORD), wrong ones throttled per client address (ADMIN_LIMIT_PER_IP); without a
 * password they are not mounted at all:
 * - Bull Board over every operation queue at /admin/queues;
 * - Prometheus metrics of the api at /metrics (queue depths are read when scraped).
 */
export async function mountAdminRoutes(
  app: NestFastifyApplication,
  config: AppConfig,
): Promise<void> {
  const admin = config.admin;
  if (!admin) return;
  const queues = app.get(OperationQueue);
  const throttle = app.get(AuthThrottle);
  const backlog = app.get(AccountBacklog);
  const networks = CONCRETE_NETWORKS;
  const board = new BullBoardAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: networks
      .flatMap((network) => queues.networkQueues(network))
      .map((queue) => new BullMQAdapter(queue)),
    serverAdapter: board,
  });
  const expected = Buffer.from(`${admin.user}:${admin.password}`);
  /** Why a request may not use the admin routes (429 past the throttle, 401), or null. */
  const adminRefusal = async (request: FastifyRequest): Promise<AppError | null> => {
    const presented = request.headers.authorization;
    // Asking without credentials (a browser before its prompt) guesses nothing: not counted.
    if (presented !== undefined) {
      try {
        await throttle.admitAdmin(request.ip);
      } catch (error) {
        if (error instanceof AppError) return error;
        throw error;
      }
    }
    if (basicCredentialsMatch(presented, expected)) {
      await throttle.adminSucceeded(request.ip);
      return null;
    }
    return new AppError('UNAUTHORIZED', 'Admin credentials required.', {
      'www-authenticate': 'Basic realm="admin", charset="UTF-8"',
    });
  };
  await app.register(async (scope: FastifyInstance) => {
    scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const refusal = await adminRefusal(request);
      if (refusal) {
        await reply
          .status(refusal.status)
          .headers(refusal.headers)
          .send(errorEnvelope(refusal.status, refusal.message));
      }
    });
    await scope.register(board.registerPlugin(), { prefix: QUEUE_BOARD_PATH });
    scope.get('/metrics', async (_request, reply) => {
      const depths = Promise.all(
        networks.flatMap(queues.networkQueues.bind(queues)).map(async (queue) => {
          const counts = await queue.getJobCounts(...QUEUE_STATES);
          for (const state of QUEUE_STATES) {
            METRICS.queueJobs.set({ queue: queue.name, state }, counts[state] ?? 0);
          }
        }),
      );
      await Promise.all([depths, refreshAccountGauges(backlog, networks)]);
      return reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
    });
  });
}

function basicCredentialsMatch(header: string | undefined, expected: Buffer): boolean {
  if (!header?.startsWith('Basic ')) return false;
  const presented = Buffer.from(Buffer.from(header.slice(6), 'base64').toString('utf8'));
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
