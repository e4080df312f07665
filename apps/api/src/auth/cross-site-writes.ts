import type { FastifyRequest } from 'fastify';
import { AppError } from '@app/common';

/** Methods that change nothing: a cross-site read of a session route is not refused here. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** What Sec-Fetch-Site says of a request a page of this origin, or the user, made. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

/**
 * Refuses a write authenticated by the session cookie when the browser says it comes from
 * another site: SameSite=Strict already keeps the cookie off such requests; this holds if that
 * ever fails (an old browser, a cookie set without it). A browser names the page's origin in
 * `Origin` on every cross-origin write (compared with the host the request was sent to, so a
 * deployment needs no setting of its public URL), else in `Sec-Fetch-Site`; a request with
 * neither header is not a browser's (scripts, curl) and passes.
 */
export function assertSameOriginWrite(request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (hostOfOrigin(origin) !== request.host) throw crossSite(`Origin ${origin.slice(0, 100)}`);
    return;
  }
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && !OWN_FETCH_SITES.has(site)) {
    throw crossSite(`Sec-Fetch-Site ${site.slice(0, 20)}`);
  }
}

/** The host (and port) an Origin header names, or null for `null` or anything else unreadable. */
function hostOfOrigin(origin: string): string | null {
  try {
    return new URL(origin).host || null;
  } catch {
    return null;
  }
}

function crossSite(evidence: string): AppError {
  return new AppError(
    'FORBIDDEN',
    `This write comes from another site (${evidence}): a session's writes are taken only ` +
      "from the dashboard's own origin.",
  );
}
