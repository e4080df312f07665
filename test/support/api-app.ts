import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, type AppConfig } from '@app/config';
import { createApiApp } from '../../apps/api/src/create-api-app';
import { HttpClient } from './http-client';
import { keyPrefixFor, type TestServices } from './test-services';

/** The API in this process on a free port, for tests that need to reach inside it. */
export async function startApiInProcess(
  services: TestServices,
  env: Record<string, string> = {},
): Promise<{ app: NestFastifyApplication; http: HttpClient; config: AppConfig }> {
  const config = loadConfig({
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    FUND_MANAGED_WALLETS: 'false',
    // The in-process API logs to the test runner's output: only what is worth reading there.
    LOG_LEVEL: 'warn',
    QUEUE_PREFIX: keyPrefixFor(services.databaseUrl),
    ...env,
  });
  const app = await createApiApp(config);
  await app.listen(0, '127.0.0.1');
  return { app, http: new HttpClient(await app.getUrl()), config };
}

/** Several API instances in this process sharing one database and Redis, as a scaled deployment. */
export async function startApiInstances(
  services: TestServices,
  count: number,
  env: Record<string, string> = {},
): Promise<{ apps: NestFastifyApplication[]; clients: HttpClient[] }> {
  const started = await Promise.all(
    Array.from({ length: count }, () => startApiInProcess(services, env)),
  );
  return { apps: started.map((s) => s.app), clients: started.map((s) => s.http) };
}
