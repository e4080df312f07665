import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
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
 * The security headers of every response, as @fastify/helmet sets them (nosniff, frame and
 * referrer policies, a Content-Security-Policy per kind of page, HSTS outside `local`), plus
 * `Cache-Control: no-store` unless a route sets its own caching: API answers carry secrets (a
 * new API key, a wallet's `secret_key`, session cookies) or account data no cache should keep.
 *
 * The plugin builds helmet's middleware anew on every request (it parses the policy each time,
 * in two hooks, one of them async): about 5% of a small read's CPU. Our policies have no nonce,
 * so its headers are the same on every answer of a kind of page: they are recorded once at
 * boot, from the plugin itself on a probe instance, and set as they are.
 */
export async function setSecurityHeaders(
  app: NestFastifyApplication,
  config: AppConfig,
): Promise<void> {
  const helmetOptions = {
    contentSecurityPolicy: { useDefaults: false, directives: API_POLICY },
    // As every policy here says (frame-ancestors 'none'), for browsers that read only this one.
    frameguard: { action: 'deny' as const },
    // Browsers ignore HSTS over plain HTTP, but a local run behind a TLS proxy on a shared
    // host name would pin that whole name to HTTPS for a year: only real profiles send it.
    strictTransportSecurity:
      config.profile === 'local'
        ? (false as const)
        : { maxAge: ONE_YEAR_SECONDS, includeSubDomains: true },
  };
  const apiHeaders = await helmetHeaders(helmetOptions);
  const pageHeaders = await Promise.all(
    PAGE_POLICIES.map(async ([prefix, directives]) => {
      const csp = { contentSecurityPolicy: { useDefaults: false, directives } };
      return [prefix, await helmetHeaders({ ...helmetOptions, ...csp })] as const;
    }),
  );
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = request.routeOptions.url;
    const page = route ? pageHeaders.find(([prefix]) => route.startsWith(prefix)) : undefined;
    void reply.headers(page ? page[1] : apiHeaders);
    void reply.header('cache-control', 'no-store');
    done();
  });
}

/** The headers @fastify/helmet sets with these options, answering one request of a probe. */
async function helmetHeaders(options: FastifyHelmetOptions): Promise<Record<string, string>> {
  const probe = Fastify();
  let recorded: Record<string, string> = {};
  await probe.register(fastifyHelmet, { ...options, global: true });
  probe.addHook('onSend', async (_request, reply) => {
    // Helmet sets its headers on the raw response; the reply's own come after this hook.
    recorded = Object.fromEntries(
      Object.entries(reply.raw.getHeaders()).map(([name, value]) => [name, String(value)]),
    );
  });
  probe.get('/', async () => '');
  await probe.inject({ method: 'GET', url: '/' });
  await probe.close();
  if (!recorded['content-security-policy']) throw new Error('helmet set no security headers');
  return recorded;
}
