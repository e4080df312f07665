import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerSession, TEST_PASSWORD } from '@test/support/accounts';
import { startApiInProcess } from '@test/support/api-app';
import { launchChromium, pageErrors } from '@test/support/browser';
import { HttpClient, type HttpResponse } from '@test/support/http-client';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const API_POLICY = "default-src 'none';frame-ancestors 'none'";

/** What every API answer carries: not sniffed, not framed, not cached. */
function expectApiHeaders(response: HttpResponse): void {
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('content-security-policy')).toBe(API_POLICY);
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('cache-control')).toBe('no-store');
}

/**
 * The security headers of @fastify/helmet on every response, `Cache-Control: no-store` on every
 * answer that carries a secret (and on API answers generally), and pages keeping the policy they
 * need.
 */
describe('security headers', () => {
  let services: TestServices;
  let app: NestFastifyApplication;
  let http: HttpClient;

  beforeAll(async () => {
    services = await startTestServices();
    ({ app, http } = await startApiInProcess(services));
  });

  afterAll(async () => {
    await app?.close();
    await services?.stop();
  });

  it('marks every answer carrying a secret no-store and nosniff, and sends no HSTS on local', async () => {
    const session = new HttpClient(http.baseUrl);
    const email = `headers-${Date.now()}@example.com`;
    const registered = await session.post('/account/register', { email, password: TEST_PASSWORD });
    const signedIn = await session.post('/account/login', { email, password: TEST_PASSWORD });
    const issued = await session.post('/account/api-keys', { name: 'headers' });
    const wallet = await http.post(
      '/wallets',
      { network: 'solana' },
      { 'api-key': issued.body.data.key },
    );
    expect(wallet.body.data.secret_key).toBeTruthy();
    for (const response of [registered, signedIn, issued, wallet]) {
      expect(response.status).toBe(200);
      expectApiHeaders(response);
      expect(response.headers.get('strict-transport-security')).toBeNull();
    }
    expect(registered.headers.get('set-cookie')).toMatch(/^ais_session=/);
    expect(signedIn.headers.get('set-cookie')).toMatch(/^ais_session=/);

    // Errors and routes that do not exist too.
    const unauthorized = await http.post('/wallets', { network: 'solana' });
    expect(unauthorized.status).toBe(401);
    expectApiHeaders(unauthorized);
    const missing = await http.get('/no-such-route');
    expect(missing.status).toBe(404);
    expectApiHeaders(missing);
  });

  it('leaves the dashboard its own policy and caching, and gives the API docs one that loads them', async () => {
    const dashboard = await http.get('/dashboard');
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'self'/,
    );
    expect(dashboard.headers.get('cache-control')).toBe('no-cache');
    expect(dashboard.headers.get('x-content-type-options')).toBe('nosniff');

    const docs = await http.get('/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-security-policy')).toContain("script-src 'self'");
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors = pageErrors(page);
      await page.goto(`${http.baseUrl}/docs`);
      // Swagger UI ran, fetched the OpenAPI document and rendered it.
      await page.getByText('/account/register', { exact: true }).first().waitFor();
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  describe('outside the local profile', () => {
    let devnet: NestFastifyApplication;
    let devnetHttp: HttpClient;

    beforeAll(async () => {
      ({ app: devnet, http: devnetHttp } = await startApiInProcess(services, {
        APP_PROFILE: 'devnet',
        MASTER_KEYS: `test:${Buffer.alloc(32, 9).toString('base64')}`,
      }));
    });

    afterAll(async () => {
      await devnet?.close();
    });

    it('sends HSTS for a year, subdomains included', async () => {
      const { email } = await registerSession(http.baseUrl, 'hsts');
      const signedIn = await devnetHttp.post('/account/login', { email, password: TEST_PASSWORD });
      expect(signedIn.status).toBe(200);
      expect(signedIn.headers.get('strict-transport-security')).toBe(
        'max-age=31536000; includeSubDomains',
      );
      expectApiHeaders(signedIn);
    });
  });
});
