import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { loadConfig } from '@app/config';
import { AppModule } from '../../app.module';
import { buildOpenApiDocument } from './openapi';

/**
 * Prints the OpenAPI document as JSON (or writes it to the file given), without a server: the
 * app is created in preview mode, which reads the controllers but connects to nothing.
 */
async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule.forRoot(loadConfig({})), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  const json = JSON.stringify(buildOpenApiDocument(app), null, 2) + '\n';
  await app.close();
  const target = process.argv[2];
  if (target) writeFileSync(target, json);
  else process.stdout.write(json);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
