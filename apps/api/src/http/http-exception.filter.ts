import {
  Catch,
  HttpException,
  HttpStatus,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, INVALID_BODY_MESSAGE } from '@app/common';
import { errorEnvelope } from './error-envelope';

/**
 * The one place errors become responses. Domain errors keep their message; framework errors get
 * a message of ours; anything else is a 500 whose details go to the log, never to the client.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status, message, headers } = this.describe(exception, request);
    if (status >= 500 && !(exception instanceof AppError)) {
      this.logger.error(
        `${request.method} ${request.url} failed [request ${request.id}]`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
    void reply.status(status).headers(headers).send(errorEnvelope(status, message));
  }

  private describe(
    exception: unknown,
    request: FastifyRequest,
  ): { status: number; message: string; headers: Record<string, string> } {
    if (exception instanceof AppError) {
      return { status: exception.status, message: exception.message, headers: exception.headers };
    }
    if (exception instanceof HttpException) {
      return {
        status: exception.getStatus(),
        message: httpMessage(exception, request),
        headers: {},
      };
    }
    const fastifyStatus = fastifyClientErrorStatus(exception);
    if (fastifyStatus) {
      return {
        status: fastifyStatus,
        message: fastifyMessage(exception, fastifyStatus),
        headers: {},
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
