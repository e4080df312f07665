import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, type AppConfig } from '@app/config';
import { createApiApp } from '../../apps/api/src/create-api-app';
import { HttpClient } from './http-client';
import { newAccountClient } from './service-stack';
import { keyPrefixFor, startTestServices, type TestServices } from './test-services';

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

/**
 * Test services of their own, the API in this process, and a new account's api-key client on
 * it; `stop` ends the API, then the services.
 */
export async function startApiWithAccount(): Promise<{
  api: HttpClient;
  stop: () => Promise<void>;
}> {
  const services = await startTestServices();
  const { app, http } = await startApiInProcess(services).catch(async (error: unknown) => {
    await services.stop();
    throw error;
  });
  const stop = async () => {
    await app.close();
    await services.stop();
  };
  try {
    const { api } = await newAccountClient(http);
    return { api, stop };
  } catch (error) {
    await stop();
    throw error;
  }
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
