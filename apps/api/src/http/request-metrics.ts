import type { FastifyInstance } from 'fastify';
import { METRICS } from '@app/common';

/** HTTP latency by method, route pattern (not the raw URL: bounded labels) and status. */
export function recordRequestMetrics(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    METRICS.httpRequestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
