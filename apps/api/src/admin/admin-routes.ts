import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BullBoardAdapter } from '@bull-board/fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { METRICS, metricsRegistry } from '@app/common';
import { NETWORKS, type AppConfig, type ConcreteNetwork } from '@app/config';
import { AccountBacklog, OperationQueue, refreshAccountGauges } from '@app/queue';
import { errorEnvelope } from '../http/error-envelope';

export const QUEUE_BOARD_PATH = '/admin/queues';
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * The operators' routes, behind HTTP Basic credentials from configuration (ADMIN_USER /
 * ADMIN_PASSWORD); without a password they are not mounted at all:
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
  const backlog = app.get(AccountBacklog);
  const networks = NETWORKS.filter((network): network is ConcreteNetwork => network !== 'evm');
  const board = new BullBoardAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: networks
      .flatMap((network) => queues.networkQueues(network))
      .map((queue) => new BullMQAdapter(queue)),
    serverAdapter: board,
  });
  const expected = Buffer.from(`${admin.user}:${admin.password}`);
  await app.register(async (scope: FastifyInstance) => {
    scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (!basicCredentialsMatch(request.headers.authorization, expected)) {
        await reply
          .status(401)
          .header('www-authenticate', 'Basic realm="admin", charset="UTF-8"')
          .send(errorEnvelope(401, 'Admin credentials required.'));
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
