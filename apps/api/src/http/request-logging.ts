import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { LogContext } from '@app/common';

/**
 * One JSON line per request (method, route, status, time; the headers, credentials redacted,
 * only with LOG_REQUEST_HEADERS: serializing and redacting them was a large share of a small
 * request's CPU), and the request id on every line logged while the request is handled, down to
 * the job it enqueues.
 */
export function logRequests(
  fastify: FastifyInstance,
  logger: Logger,
  options: { headers: boolean },
): void {
  // After the body is parsed, so the handler (Nest's guards, pipes, controller) runs inside.
  fastify.addHook('preHandler', (request, _reply, done) =>
    LogContext.run({ requestId: request.id }, done),
  );
  fastify.addHook('onResponse', (request, reply, done) => {
    const level = reply.statusCode >= 500 ? 'error' : 'info';
    if (!logger.isLevelEnabled(level)) return done();
    const req = {
      method: request.method,
      url: request.url,
      route: request.routeOptions.url,
      remoteAddress: request.ip,
      ...(options.headers ? { headers: request.headers } : {}),
    };
    const res = {
      statusCode: reply.statusCode,
      ...(options.headers ? { headers: reply.getHeaders() } : {}),
    };
    const responseTimeMs = Math.round(reply.elapsedTime * 10) / 10;
    logger[level]({ requestId: request.id, req, res, responseTimeMs }, 'request completed');
    done();
  });
}
