import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { LIFECYCLE_CONTEXT } from '@app/common';
import { loadConfig } from '@app/config';
import { createApiApp } from './create-api-app';

async function bootstrap(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await createApiApp(config);
  await app.listen(config.api.port, config.api.host);
  Logger.log(
    `API listening on ${await app.getUrl()} (profile ${config.profile})`,
    LIFECYCLE_CONTEXT,
  );
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
