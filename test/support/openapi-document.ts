import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { loadConfig } from '@app/config';
import { AppModule } from '../../apps/api/src/app.module';
import { buildOpenApiDocument } from '../../apps/api/src/http/docs/openapi';

/** The API's OpenAPI document, built in this process without a server (Nest preview mode). */
export async function buildDocumentInProcess(): Promise<object> {
  const app = await NestFactory.create(AppModule.forRoot(loadConfig({})), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return JSON.parse(JSON.stringify(buildOpenApiDocument(app))) as object;
  } finally {
    await app.close();
  }
}
