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
        expect.arrayContaining([
          '{operations-base-0}',
          '{operations-base-3}',
          '{operations-solana-2}',
        ]),
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
        await tab.getByText('{operations-solana-0}', { exact: true }).first().waitFor();
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    });

    it('ignores a trailing slash on routes', async () => {
      expect((await http.get('/health/')).status).not.toBe(404);
    });
  });

  it('throttles wrong admin passwords per client address, as sign-ins are', async () => {
    const { app, http } = await startApiInProcess(services, {
      ADMIN_USER: 'ops',
      ADMIN_PASSWORD: 'board-secret',
      ADMIN_LIMIT_PER_IP: '3/60',
      QUEUE_PREFIX: `admin-throttle-${Date.now()}`,
    });
    try {
      const right = { authorization: basic('ops', 'board-secret') };
      const wrong = { authorization: basic('ops', 'guess') };
      // A success gives its attempt back: a scraper is never throttled.
      for (let i = 0; i < 5; i += 1) expect((await http.get('/metrics', right)).status).toBe(200);
      for (let i = 0; i < 3; i += 1) expect((await http.get('/metrics', wrong)).status).toBe(401);
      // Asking without credentials (a browser's first request) is no guess.
      expect((await http.get('/admin/queues')).status).toBe(401);
      for (const [path, headers] of [
        ['/metrics', wrong],
        ['/admin/queues', wrong],
        ['/metrics', right],
      ] as const) {
        const refused = await http.get(path, headers);
        expect({ path, status: refused.status }).toEqual({ path, status: 429 });
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(refused.body).toMatchObject({
          success: false,
          error: 'Too many requests',
          message: expect.stringMatching(
            /failed admin sign-ins from this address: at most 3 per 60 seconds/,
          ),
        });
      }
    } finally {
      await app.close();
    }
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
