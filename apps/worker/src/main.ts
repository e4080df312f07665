import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createLogger, LIFECYCLE_CONTEXT, PinoNestLogger } from '@app/common';
import { loadConfig } from '@app/config';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    logger: new PinoNestLogger(createLogger({ service: 'worker', ...config.log })),
  });
  app.enableShutdownHooks();
  Logger.log(`Worker started (profile ${config.profile})`, LIFECYCLE_CONTEXT);
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
