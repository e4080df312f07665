import type { FastifyHttpOptions, FastifyInstance } from 'fastify';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { AppConfig } from '@app/config';
import {
  answerUnsupportedExpectation,
  clientErrorHandler,
  connectRefusal,
} from './client-error.handler';
import { answerFrameworkError, requireHostHeader } from './framework-errors.handler';
import { registerJsonBodyParser } from './json-body.parser';
import { answerOverLimitBodies } from './over-limit-bodies';

/**
 * The server options of the API's edge: every answer, Node's and Fastify's own refusals
 * included, is the error envelope with an x-request-id, and slow or unfinished requests are
 * closed within the configured timeouts.
 *
 * There is deliberately no idle-socket timeout (Fastify's `connectionTimeout`): a synchronous
 * write waits up to SYNC_WAIT_MS with nothing on the wire, and must not be cut. The request and
 * headers timeouts only run until the request has been read.
 */
export function edgeServerOptions(
  api: AppConfig['api'],
  logger: Logger,
): Pick<
  FastifyHttpOptions<Server>,
  'requestTimeout' | 'http' | 'clientErrorHandler' | 'frameworkErrors'
> {
  return {
    // Fastify sets it on the server after creating it; `http` below has it too, because Node
    // checks at creation that the headers timeout is not the longer one.
    requestTimeout: api.requestTimeoutMs,
    http: {
      headersTimeout: api.headersTimeoutMs,
      requestTimeout: api.requestTimeoutMs,
      // Node looks for expired requests this often (30 s by default): the timeouts above
      // would otherwise be late by up to that much.
      connectionsCheckingInterval: Math.min(1_000, api.headersTimeoutMs),
      requireHostHeader: false,
    },
    clientErrorHandler: clientErrorHandler(logger, api),
    frameworkErrors: answerFrameworkError,
  };
}

/**
 * The edge's hooks and body parser: before any plugin scope (which copies the body parsers it
 * sees) and after the hook that sets x-request-id (so a refusal here carries it).
 */
export function hardenEdge(fastify: FastifyInstance, logger: Logger): void {
  registerJsonBodyParser(fastify);
  requireHostHeader(fastify);
  answerOverLimitBodies(fastify);
  fastify.server.on('checkExpectation', answerUnsupportedExpectation);
  fastify.server.on('connect', connectRefusal(logger));
}
