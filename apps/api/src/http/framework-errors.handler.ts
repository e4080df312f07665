import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, INVALID_BODY_MESSAGE } from '@app/common';
import { errorEnvelope } from './error-envelope';

/** Fastify's router refuses a path parameter longer than this (its `maxParamLength`). */
const MAX_PARAM_LENGTH = 100;

/**
 * Fastify's router answers a path it cannot decode (`/tokens/%zz`) or a parameter over its length
 * limit itself, before any hook or route (so without our request id); this handler answers them
 * in the envelope instead. Registered as Fastify's `frameworkErrors` option.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const { status, message } = describe(error, request.id);
  void reply.status(status).header('x-request-id', request.id).send(errorEnvelope(status, message));
}

function describe(error: FastifyError, requestId: string): { status: number; message: string } {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return {
        status: 400,
        message: `${INVALID_BODY_MESSAGE} The path has a malformed %-escape or is not UTF-8.`,
      };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return {
        status: 414,
        message: `A path parameter is over ${MAX_PARAM_LENGTH} characters.`,
      };
    default:
      // An async route constraint failing: none is used, so this is our bug.
      return { status: 500, message: `Something went wrong on our side (request ${requestId}).` };
  }
}

/**
 * HTTP/1.1 requires a Host header. Node would refuse a request without one with a bare 400 of
 * its own, so the server is told not to (`requireHostHeader: false`) and this hook refuses it,
 * in the envelope.
 */
export function requireHostHeader(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const { httpVersionMajor, httpVersionMinor } = request.raw;
    const http11 = httpVersionMajor > 1 || (httpVersionMajor === 1 && httpVersionMinor >= 1);
    if (http11 && request.headers.host === undefined) {
      done(AppError.badRequest('HTTP/1.1 requires a Host header.'));
      return;
    }
    done();
  });
}
