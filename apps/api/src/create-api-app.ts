import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AppConfig, loadConfig } from '@app/config';
import { createLogger, PinoNestLogger, requestIdFrom } from '@app/common';
import { mountAdminRoutes } from './admin/admin-routes';
import { AppModule } from './app.module';
import { setUpOpenApi } from './http/docs/openapi';
import { edgeServerOptions, hardenEdge } from './http/edge';
import { echoRequestId } from './http/request-id';
import { logRequests } from './http/request-logging';
import { setSecurityHeaders } from './http/security-headers';
import { closeConnectionsWhileDraining, ShutdownDrain } from './http/shutdown-drain';
import { recordRequestMetrics } from './http/request-metrics';

/** Builds the API application (used by main.ts and by the tests). */
export async function createApiApp(
  config: AppConfig = loadConfig(process.env),
): Promise<NestFastifyApplication> {
  const logger = createLogger({ service: 'api', ...config.log });
  const adapter = new FastifyAdapter({
    bodyLimit: config.api.bodyLimitBytes,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) =>
      requestIdFrom(request.headers['x-request-id']),
    requestIdHeader: false,
    // Whose X-Forwarded-For to believe (TRUST_PROXY): request.ip keys the per-address limits.
    trustProxy: config.api.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    // On SIGTERM, requests already on a connection are served (with `Connection: close`)
    // rather than refused with a bare 503; new connections are refused once the server closes.
    return503OnClosing: false,
    ...edgeServerOptions(config.api, logger),
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
    // Bodies are parsed by the edge's own JSON parser only (hardenEdge): no form bodies.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // An airdrop's 10,000 entries are more than any other body: its routes take more.
  fastify.addHook('onRoute', (route) => {
    if (route.url.endsWith('/airdrop')) route.bodyLimit = config.api.airdropBodyLimitBytes;
  });
  await app.register(fastifyCookie);
  await setSecurityHeaders(app, config);
  echoRequestId(fastify);
  hardenEdge(fastify, logger);
  logRequests(fastify, logger, {
    headers: config.log.requestHeaders,
    redactPaths: config.log.redactPaths,
  });
  recordRequestMetrics(fastify);
  closeConnectionsWhileDraining(fastify, app.get(ShutdownDrain));
  app.enableShutdownHooks();
  setUpOpenApi(app);
  await mountAdminRoutes(app, config);
  return app;
}
