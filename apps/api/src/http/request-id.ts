import type { FastifyInstance } from 'fastify';

/** Every response carries the request's id (the caller's x-request-id when it is well formed). */
export function echoRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
}
