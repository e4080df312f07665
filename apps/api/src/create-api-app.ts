import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AppConfig, loadConfig } from '@app/config';
import { requestIdFrom } from '@app/common';
import { mountAdminRoutes } from './admin/admin-routes';
import { AppModule } from './app.module';
import { setUpOpenApi } from './http/docs/openapi';
import { echoRequestId } from './http/request-id';
import { recordRequestMetrics } from './http/request-metrics';

/** Builds the API application (used by main.ts and by the tests). */
export async function createApiApp(
  config: AppConfig = loadConfig(process.env),
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.api.bodyLimitBytes,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) =>
      requestIdFrom(request.headers['x-request-id']),
    requestIdHeader: false,
    trustProxy: true,
    routerOptions: { ignoreTrailingSlash: true },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bufferLogs: false,
    logger:
      config.logLevel === 'debug' ? ['debug', 'log', 'warn', 'error'] : ['log', 'warn', 'error'],
    abortOnError: false,
  });
  await app.register(fastifyCookie);
  const fastify = app.getHttpAdapter().getInstance();
  echoRequestId(fastify);
  recordRequestMetrics(fastify);
  app.enableShutdownHooks();
  setUpOpenApi(app);
  await mountAdminRoutes(app, config);
  return app;
}
