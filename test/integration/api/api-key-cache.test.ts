import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startApiInstances } from '@test/support/api-app';
import { queryDatabase } from '@test/support/chain-reads';
import { HttpClient } from '@test/support/http-client';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const UNKNOWN_OPERATION = '/operations/00000000-0000-4000-8000-000000000000';

/**
 * Active API keys are cached per API instance; a revocation through any instance reaches every
 * instance's cache at once (Redis pub/sub), not after the cache's time to live.
 */
describe('API key cache across API instances', () => {
  let services: TestServices;
  let apps: NestFastifyApplication[] = [];
  let a: HttpClient;
  let b: HttpClient;

  beforeAll(async () => {
    services = await startTestServices();
    let clients: HttpClient[];
    ({ apps, clients } = await startApiInstances(services, 2));
    [a, b] = clients;
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await services?.stop();
  });

  const newKey = async () => {
    const session = new HttpClient(a.baseUrl);
    await session.post('/account/register', {
      email: `cache-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`,
      password: 'correct horse battery staple',
    });
    const issued = await session.post('/account/api-keys', { name: 'cached' });
    return { session, key: issued.body.data.key as string, id: issued.body.data.id as string };
  };

  /** 404 for an unknown operation means the key was accepted; 401 that it was not. */
  const statusWith = async (instance: HttpClient, key: string) =>
    (await instance.get(UNKNOWN_OPERATION, { 'api-key': key })).status;

  /** The first use starts hearing revocations; caching begins once that subscription is up. */
  const warm = async (instance: HttpClient, key: string) => {
    for (let i = 0; i < 3; i++) expect(await statusWith(instance, key)).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await statusWith(instance, key)).toBe(404);
  };

  it('serves an active key from the cache: a change behind its back shows only after the TTL', async () => {
    const { key, id } = await newKey();
    await warm(b, key);
    // Revoked in Postgres directly, with no announcement: instance B still has it cached.
    await queryDatabase(
      services.databaseUrl,
      'UPDATE api_keys SET revoked_at = now() WHERE id = $1',
      [id],
    );
    expect(await statusWith(b, key)).toBe(404);
  });

  it('drops a key revoked through one instance from every instance at once', async () => {
    const { session, key, id } = await newKey();
    await warm(a, key);
    await warm(b, key);

    expect((await session.delete(`/account/api-keys/${id}`)).status).toBe(200);
    expect(await statusWith(a, key)).toBe(401);
    const revokedAt = Date.now();
    while ((await statusWith(b, key)) !== 401) {
      expect(Date.now() - revokedAt).toBeLessThan(2_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
});
