import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { LogContext, redactUrl } from '@app/common';

/**
 * One JSON line per request (method, route, status, time; the headers, credentials redacted,
 * only with LOG_REQUEST_HEADERS: serializing and redacting them was a large share of a small
 * request's CPU), and the request id on every line logged while the request is handled, down to
 * the job it enqueues. A response the client hung up on before it finished (an event stream,
 * which only ends that way unless the server shuts down) gets its line too, marked `aborted`.
 */
export function logRequests(
  fastify: FastifyInstance,
  parentLogger: Logger,
  options: RequestLogOptions,
): void {
  const logger = requestLineLogger(parentLogger, options);
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

export interface RequestLogOptions {
  /** LOG_REQUEST_HEADERS: the request's and response's headers on the line (redacted). */
  headers: boolean;
  /** LOG_REDACT_PATHS: what the operator redacts on top of the built-in paths. */
  redactPaths: readonly string[];
}

/**
 * The request line's logger. Without headers, the line (method, URL, route, address, status,
 * time) holds none of the fields the built-in redaction looks for, and redacting it anyway
 * cost about 10 us a line (pino clones the object per path): a twentieth of a small read's CPU.
 * Paths an operator adds may name the line's own fields (`req.remoteAddress`): then it redacts.
 */
function requestLineLogger(logger: Logger, options: RequestLogOptions): Logger {
  if (options.headers || options.redactPaths.length > 0) return logger;
  return logger.child({}, { redact: [] });
}

function logCompleted(
  logger: Logger,
  options: RequestLogOptions,
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
        url: redactUrl(request.url),
        route: request.routeOptions.url,
        remoteAddress: request.ip,
        ...(options.headers ? { headers: withRedactedReferer(request.headers) } : {}),
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

/** The referring page is a URL too: its query's credentials are redacted as the request's are. */
function withRedactedReferer(headers: FastifyRequest['headers']): FastifyRequest['headers'] {
  const { referer } = headers;
  return typeof referer === 'string' ? { ...headers, referer: redactUrl(referer) } : headers;
}
