import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BullBoardAdapter } from '@bull-board/fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { NETWORKS, type AppConfig } from '@app/config';
import { OperationQueue } from '@app/queue';
import { errorEnvelope } from '../http/error-envelope';

export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * Bull Board over every operation queue at /admin/queues, behind HTTP Basic credentials from
 * configuration (ADMIN_USER / ADMIN_PASSWORD). Without a password it is not mounted at all.
 */
export async function mountQueueBoard(
  app: NestFastifyApplication,
  config: AppConfig,
): Promise<void> {
  const admin = config.admin;
  if (!admin) return;
  const queues = app.get(OperationQueue);
  const board = new BullBoardAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: NETWORKS.filter((network) => network !== 'evm').map(
      (network) => new BullMQAdapter(queues.queue(network)),
    ),
    serverAdapter: board,
  });
  const expected = Buffer.from(`${admin.user}:${admin.password}`);
  await app.register(async (scope: FastifyInstance) => {
    scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (!basicCredentialsMatch(request.headers.authorization, expected)) {
        await reply
          .status(401)
          .header('www-authenticate', 'Basic realm="queues", charset="UTF-8"')
          .send(errorEnvelope(401, 'Admin credentials required.'));
      }
    });
    await scope.register(board.registerPlugin(), { prefix: QUEUE_BOARD_PATH });
  });
}

function basicCredentialsMatch(header: string | undefined, expected: Buffer): boolean {
  if (!header?.startsWith('Basic ')) return false;
  const presented = Buffer.from(Buffer.from(header.slice(6), 'base64').toString('utf8'));
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
