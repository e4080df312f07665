import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Bodies declared up to this many times the limit are read to their end before the 413. */
const DRAIN_LIMIT_FACTOR = 8;
/** The longest a 413 waits for the rest of its body. */
const DRAIN_WAIT_MS = 5_000;

/**
 * A body declared over the limit is refused (413) before a byte of it is read, and the
 * connection is then closed. Closed with the body still arriving, the server's TCP stack answers
 * the client's next bytes with a reset, which can destroy the 413 before the client reads it:
 * the client sees no answer at all (EPIPE; the fuzz suite saw it for 1 to 3% of such requests).
 * So the 413 waits until the rest of the body has been read and discarded (a lingering close,
 * as nginx does), when the declared length is within DRAIN_LIMIT_FACTOR times the limit and for
 * at most DRAIN_WAIT_MS; a larger body is cut off at once.
 */
export function answerOverLimitBodies(fastify: FastifyInstance): void {
  const drainLimit = fastify.initialConfig.bodyLimit! * DRAIN_LIMIT_FACTOR;
  fastify.addHook('onSend', async (request, reply, payload) => {
    const declared = Number(request.headers['content-length']);
    if (reply.statusCode === 413 && declared <= drainLimit && !request.raw.complete) {
      await drained(request.raw);
    }
    return payload;
  });
}

function drained(body: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      body.off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const timer = setTimeout(done, DRAIN_WAIT_MS);
    body.on('end', done).on('close', done).on('error', done);
    body.resume();
  });
}
