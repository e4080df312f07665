import fastifyHelmet from '@fastify/helmet';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AppConfig } from '@app/config';

type Directives = Record<string, string[]>;

/**
 * What a JSON answer may load: nothing. A response that a browser was somehow made to render
 * (an error echoing a path, a hosted metadata document) runs no script and cannot be framed.
 */
const API_POLICY: Directives = {
  'default-src': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/**
 * Bull Board (/admin/queues) is a React page of its own files, with inline `style` attributes
 * and one `<style>` element in its template, a JSON (never executed) config block, and the IBM
 * Plex fonts from Google Fonts; it calls its own JSON API. No inline script, no eval.
 */
const QUEUE_BOARD_POLICY: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'", 'https://fonts.googleapis.com'],
  'font-src': ["'self'", 'https://fonts.gstatic.com'],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** Swagger UI (/docs): its own scripts, an inline `<style>` block, data: and SVG images. */
const DOCS_POLICY: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** Pages served by a library, by path prefix; the dashboard's controller sets its own policy. */
const PAGE_POLICIES: [prefix: string, directives: Directives][] = [
  ['/admin/queues', QUEUE_BOARD_POLICY],
  ['/docs', DOCS_POLICY],
];

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/**
 * The security headers of every response, set by @fastify/helmet (nosniff, frame and referrer
 * policies, a Content-Security-Policy per kind of page, HSTS outside `local`), plus
 * `Cache-Control: no-store` unless a route sets its own caching: API answers carry secrets (a
 * new API key, a wallet's `secret_key`, session cookies) or account data no cache should keep.
 * Register before the routes: helmet reads each route's policy as the route is added.
 */
export async function setSecurityHeaders(
  app: NestFastifyApplication,
  config: AppConfig,
): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  // Added before helmet's own onRoute hook, which reads `route.helmet` right after this one.
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const page = PAGE_POLICIES.find(([prefix]) => route.url.startsWith(prefix));
    if (page && route.helmet === undefined) {
      route.helmet = { contentSecurityPolicy: { useDefaults: false, directives: page[1] } };
    }
  });
  await app.register(fastifyHelmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: API_POLICY },
    // As every policy here says (frame-ancestors 'none'), for browsers that read only this one.
    frameguard: { action: 'deny' },
    // Browsers ignore HSTS over plain HTTP, but a local run behind a TLS proxy on a shared
    // host name would pin that whole name to HTTPS for a year: only real profiles send it.
    strictTransportSecurity:
      config.profile === 'local' ? false : { maxAge: ONE_YEAR_SECONDS, includeSubDomains: true },
  });
  fastify.addHook('onRequest', async (_request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('cache-control', 'no-store');
  });
}
