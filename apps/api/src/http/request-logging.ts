import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { LogContext } from '@app/common';

/**
 * One JSON line per request (method, route, headers with credentials redacted, status, time),
 * and the request id on every line logged while the request is handled, down to the job it
 * enqueues.
 */
export function logRequests(fastify: FastifyInstance, logger: Logger): void {
  // After the body is parsed, so the handler (Nest's guards, pipes, controller) runs inside.
  fastify.addHook('preHandler', (request, _reply, done) =>
    LogContext.run({ requestId: request.id }, done),
  );
  fastify.addHook('onResponse', (request, reply, done) => {
    const level = reply.statusCode >= 500 ? 'error' : 'info';
    logger[level](
      {
        requestId: request.id,
        req: {
          method: request.method,
          url: request.url,
          route: request.routeOptions.url,
          remoteAddress: request.ip,
          headers: request.headers,
        },
        res: { statusCode: reply.statusCode, headers: reply.getHeaders() },
        responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
    done();
  });
}
