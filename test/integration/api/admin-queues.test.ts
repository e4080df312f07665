import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { launchChromium, pageErrors } from '@test/support/browser';
import { startApiInProcess } from '@test/support/api-app';
import type { HttpClient } from '@test/support/http-client';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('Bull Board at /admin/queues', () => {
  let services: TestServices;

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await services.stop();
  });

  describe('with admin credentials configured', () => {
    let app: NestFastifyApplication;
    let http: HttpClient;

    beforeAll(async () => {
      ({ app, http } = await startApiInProcess(services, {
        ADMIN_USER: 'ops',
        ADMIN_PASSWORD: 'board-secret',
        QUEUE_PREFIX: `board-${Date.now()}`,
      }));
    });

    afterAll(async () => {
      await app.close();
    });

    it('refuses missing and wrong credentials with 401 and a Basic challenge', async () => {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: basic('ops', 'wrong-secret') },
      ];
      for (const headers of attempts) {
        const response = await http.get('/admin/queues', headers);
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
        expect(response.body).toMatchObject({ success: false, error: 'Unauthorized' });
      }
    });

    it('serves the board and its queue list with the right credentials', async () => {
      const auth = { authorization: basic('ops', 'board-secret') };
      const page = await http.get('/admin/queues', auth);
      expect(page.status).toBe(200);
      expect(String(page.body)).toMatch(/<html/i);
      const api = await http.get('/admin/queues/api/queues', auth);
      expect(api.status).toBe(200);
      const names = (api.body.queues as { name: string }[]).map((queue) => queue.name);
      // Every shard queue of every network: 21 networks, QUEUE_SHARDS (4 by default) each.
      expect(names).toEqual(
        expect.arrayContaining(['operations-base-0', 'operations-base-3', 'operations-solana-2']),
      );
      expect(names).toHaveLength(21 * 4);
    });

    it('serves the board under a Content-Security-Policy it works with, in a real browser', async () => {
      const page = await http.get('/admin/queues', { authorization: basic('ops', 'board-secret') });
      const policy = page.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');

      const browser = await launchChromium();
      try {
        const context = await browser.newContext({
          httpCredentials: { username: 'ops', password: 'board-secret' },
        });
        const tab = await context.newPage();
        const errors = pageErrors(tab);
        await tab.goto(`${http.baseUrl}/admin/queues`);
        // The React app ran, fetched the queue list from its API and rendered it.
        await tab.getByText('operations-solana-0', { exact: true }).first().waitFor();
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    });

    it('ignores a trailing slash on routes', async () => {
      expect((await http.get('/health/')).status).not.toBe(404);
    });
  });

  it('is not mounted without an admin password', async () => {
    const { app, http } = await startApiInProcess(services);
    try {
      expect((await http.get('/admin/queues')).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});
