import {
  Catch,
  HttpException,
  HttpStatus,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CODES, INVALID_BODY_MESSAGE, redactUrl } from '@app/common';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '@app/database';
import { errorEnvelope } from './error-envelope';

/** An outage fails every request: one log line per this long says so, not one per request. */
const OUTAGE_LOG_EVERY_MS = 10_000;

/**
 * The one place errors become responses. Domain errors keep their message; framework errors get
 * a message of ours; anything else is a 500 whose details go to the log, never to the client.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');
  private lastOutageLog = 0;

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status, message, headers, error } = this.describe(exception, request);
    if (status === 503 && !(exception instanceof AppError)) {
      this.logOutage(exception);
    } else if (status >= 500 && !(exception instanceof AppError)) {
      this.logger.error(
        `${request.method} ${redactUrl(request.url)} failed [request ${request.id}]`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
    void reply
      .status(status)
      .headers(headers)
      .send(errorEnvelope(status, message, error));
  }

  private logOutage(exception: unknown): void {
    const now = Date.now();
    if (now - this.lastOutageLog < OUTAGE_LOG_EVERY_MS) return;
    this.lastOutageLog = now;
    this.logger.warn(`Postgres is unreachable; answering 503 (${String(exception)})`);
  }

  private describe(
    exception: unknown,
    request: FastifyRequest,
  ): { status: number; message: string; headers: Record<string, string>; error?: string } {
    if (exception instanceof AppError) {
      const { status, message, headers, code } = exception;
      return { status, message, headers, error: ERROR_CODES[code].error };
    }
    if (exception instanceof HttpException) {
      return {
        status: exception.getStatus(),
        message: httpMessage(exception, request),
        headers: {},
      };
    }
    // Before the database check: a body the client stopped sending fails with ECONNRESET too.
    const fastifyStatus = fastifyClientErrorStatus(exception);
    if (fastifyStatus) {
      return {
        status: fastifyStatus,
        message: fastifyMessage(exception, fastifyStatus),
        headers: {},
      };
    }
    if (isDatabaseUnavailable(exception)) {
      // A connection that failed or dropped: what it was writing is all or nothing (one
      // statement or one transaction), and did not commit unless the cut fell between a commit
      // and its answer. Operations and batches are read back then (storeThroughCut), so their
      // writes never get this answer after landing; for the other writes (keys, webhooks,
      // settings) a repeat after such a rare cut is harmless.
      return {
        status: 503,
        message:
          'The database is unavailable: nothing was accepted or changed. ' +
          `Retry in ${DATABASE_RETRY_AFTER_SECONDS} s.`,
        // no-store: a route that sets a cache lifetime (hosted metadata) must not have a
        // shared cache keep the outage.
        headers: {
          'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
          'cache-control': 'no-store',
        },
      };
    }
    return {
      status: 500,
      message: `Something went wrong on our side (request ${request.id}).`,
      headers: {},
    };
  }
}

function httpMessage(exception: HttpException, request: FastifyRequest): string {
  switch (exception.getStatus() as HttpStatus) {
    case HttpStatus.NOT_FOUND:
      return `No route ${request.method} ${request.url.split('?')[0]}.`;
    case HttpStatus.PAYLOAD_TOO_LARGE:
      return 'The request body is over the size limit.';
    case HttpStatus.UNSUPPORTED_MEDIA_TYPE:
      return 'Bodies are accepted as application/json only: send Content-Type: application/json.';
    case HttpStatus.BAD_REQUEST:
      return `${INVALID_BODY_MESSAGE} ${exception.message}`;
    default:
      return exception.message;
  }
}

/** Fastify's own client errors (body parsing, size limit, content type) carry a statusCode. */
function fastifyClientErrorStatus(exception: unknown): number | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const status = (exception as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

function fastifyMessage(exception: unknown, status: number): string {
  const code = (exception as { code?: unknown }).code;
  if (status === 413) return 'The request body is over the size limit.';
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return `${INVALID_BODY_MESSAGE} Content-Type must be application/json.`;
  }
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return `${INVALID_BODY_MESSAGE} The body is empty but Content-Type is application/json.`;
  }
  return `${INVALID_BODY_MESSAGE} The body is not valid JSON.`;
}
