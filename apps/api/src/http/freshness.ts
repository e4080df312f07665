import type { FastifyRequest } from 'fastify';

/** How fresh a chain-backed answer is: when the chain said it, and whether from the cache. */
export interface FreshnessView {
  as_of: string;
  cached: boolean;
}

/** `Cache-Control: no-cache` from the client: read the chain now, not the cache. */
export function wantsLiveRead(request: FastifyRequest): boolean {
  const header = request.headers['cache-control'];
  return /(^|[\s,])no-cache($|[\s,=])/i.test(
    Array.isArray(header) ? header.join(',') : (header ?? ''),
  );
}

export function freshnessView(read: { asOf: Date; cached: boolean }): FreshnessView {
  return { as_of: read.asOf.toISOString(), cached: read.cached };
}
