import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { LogContext } from '@app/common';

/**
 * One JSON line per request (method, route, status, time; the headers, credentials redacted,
 * only with LOG_REQUEST_HEADERS: serializing and redacting them was a large share of a small
 * request's CPU), and the request id on every line logged while the request is handled, down to
 * the job it enqueues. A response the client hung up on before it finished (an event stream,
 * which only ends that way unless the server shuts down) gets its line too, marked `aborted`.
 */
export function logRequests(
  fastify: FastifyInstance,
  logger: Logger,
  options: { headers: boolean },
): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      // Finished responses are logged by the onResponse hook below.
      if (!reply.raw.writableFinished) logCompleted(logger, options, request, reply, true);
    });
    done();
  });
  // After the body is parsed, so the handler (Nest's guards, pipes, controller) runs inside.
  fastify.addHook('preHandler', (request, _reply, done) =>
    LogContext.run({ requestId: request.id }, done),
  );
  fastify.addHook('onResponse', (request, reply, done) => {
    logCompleted(logger, options, request, reply, false);
    done();
  });
}

function logCompleted(
  logger: Logger,
  options: { headers: boolean },
  request: FastifyRequest,
  reply: FastifyReply,
  aborted: boolean,
): void {
  const level = reply.statusCode >= 500 ? 'error' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      requestId: request.id,
      req: {
        method: request.method,
        url: request.url,
        route: request.routeOptions.url,
        remoteAddress: request.ip,
        ...(options.headers ? { headers: request.headers } : {}),
      },
      res: {
        // Before its head was sent, an aborted response has no status yet.
        statusCode: aborted && !reply.raw.headersSent ? null : reply.statusCode,
        ...(options.headers ? { headers: reply.getHeaders() } : {}),
      },
      responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
      ...(aborted ? { aborted: true } : {}),
    },
    'request completed',
  );
}
