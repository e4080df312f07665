import type { ConnectionError } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { INVALID_BODY_MESSAGE, redactUrl, requestIdFrom } from '@app/common';
import { errorEnvelope } from './error-envelope';

/** Node's parser refuses headers over this many bytes (its `maxHeaderSize`, left at default). */
const MAX_HEADER_KB = 16;

/**
 * Answers what Node's HTTP parser refuses before Fastify ever sees a request (an unknown method,
 * headers over 16 KB, malformed HTTP) and the connections it times out (headers or body not
 * received within the configured timeouts), in the error envelope with a fresh request id,
 * instead of Fastify's bare `{"error":"Bad Request","message":"Client Error"}`. The connection
 * is closed after it, as Node does: what follows on it cannot be trusted to be a request.
 */
export function clientErrorHandler(
  logger: Logger,
  timeouts: { headersTimeoutMs: number; requestTimeoutMs: number },
): (error: ConnectionError, socket: Socket) => void {
  return (error, socket) => {
    // Reset by the client, or already closed: there is nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, message } = describe(error.code, timeouts);
    const requestId = randomUUID();
    logger.info(
      { context: 'HTTP', requestId, status, code: error.code, remoteAddress: socket.remoteAddress },
      'client error',
    );
    if (socket.writable && !responseStarted(socket)) {
      socket.write(rawResponse(status, requestId, message));
    }
    socket.destroy(error);
  };
}

/**
 * Answers a CONNECT request (a proxy tunnel, which this server is not): Node hands it to the
 * server's 'connect' listeners instead of the router, and with none it destroys the socket
 * without a word. 405 in the envelope, logged like the other refusals Node keeps from Fastify.
 */
export function connectRefusal(
  logger: Logger,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (request, socket) => {
    const requestId = requestIdFrom(request.headers['x-request-id']);
    const status = 405;
    logger.info(
      {
        context: 'HTTP',
        requestId,
        status,
        method: request.method,
        url: redactUrl(request.url ?? ''),
        remoteAddress: request.socket.remoteAddress,
      },
      'client error',
    );
    socket.on('error', () => undefined);
    socket.end(rawResponse(status, requestId, 'CONNECT is not supported: this is not a proxy.'));
  };
}

/**
 * Answers a request whose `Expect` header names anything but `100-continue` (Node answers those
 * with a bare 417 of its own): 417 in the envelope, with the caller's request id when well formed.
 */
export function answerUnsupportedExpectation(
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const requestId = requestIdFrom(request.headers['x-request-id']);
  const body = JSON.stringify(
    errorEnvelope(
      417,
      `The Expect header "${String(request.headers.expect).slice(0, 64)}" is not supported.`,
    ),
  );
  response.writeHead(417, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    connection: 'close',
  });
  response.end(body);
}

function describe(
  code: string,
  timeouts: { headersTimeoutMs: number; requestTimeoutMs: number },
): { status: number; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        message:
          `The request was not received in time: headers are due within ` +
          `${seconds(timeouts.headersTimeoutMs)}, the whole request within ` +
          `${seconds(timeouts.requestTimeoutMs)}.`,
      };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `The request's headers are over ${MAX_HEADER_KB} KB.` };
    case 'HPE_INVALID_METHOD':
      return { status: 405, message: 'Unknown HTTP method.' };
    default:
      return { status: 400, message: `${INVALID_BODY_MESSAGE} The request is not valid HTTP.` };
  }
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/**
 * Whether a response to a request on this socket has begun: writing another one then would
 * corrupt it, so the connection is only closed (Node's own handler makes the same check, on the
 * same internal field).
 */
function responseStarted(socket: Socket): boolean {
  return (
    (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent ===
    true
  );
}

function rawResponse(status: number, requestId: string, message: string): string {
  const body = JSON.stringify(errorEnvelope(status, message));
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}
