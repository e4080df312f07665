import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerSession } from '@test/support/accounts';
import { startApiInProcess } from '@test/support/api-app';
import { expectError } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const EVIL = 'http://evil.example';

/**
 * Writes authenticated by the session cookie are refused when a browser says they come from
 * another site (Origin, or Sec-Fetch-Site without it): defence in depth behind SameSite=Strict.
 * Requests with neither (scripts, curl) and API-key requests are not concerned.
 */
describe('cross-site writes on session routes', () => {
  let services: TestServices;
  let app: NestFastifyApplication;
  let session: HttpClient;
  let baseUrl: string;

  beforeAll(async () => {
    services = await startTestServices();
    ({ app } = await startApiInProcess(services));
    baseUrl = await app.getUrl();
    ({ session } = await registerSession(baseUrl, 'origin'));
  });

  afterAll(async () => {
    await app?.close();
    await services?.stop();
  });

  it.each([
    [{ origin: EVIL }],
    [{ origin: 'null' }],
    [{ origin: 'http://127.0.0.1:1' }],
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'same-site' }],
  ])('refuses a session write with %j: 403 in the envelope', async (headers) => {
    const issued = await session.post('/account/api-keys', { name: 'csrf' }, headers);
    expectError(issued, 403, 'Forbidden', /another site/);
    expect(issued.headers.get('x-request-id')).toBeTruthy();
  });

  it('refuses a cross-site revocation, and takes it from the same origin', async () => {
    const { id } = (await session.post('/account/api-keys', { name: 'kept' })).body.data;
    const crossSite = await session.delete(`/account/api-keys/${id}`, { origin: EVIL });
    expectError(crossSite, 403, 'Forbidden');
    const sameOrigin = await session.delete(`/account/api-keys/${id}`, { origin: baseUrl });
    expect(sameOrigin.status).toBe(200);
  });

  it('takes writes from its own origin, and from clients that send neither header', async () => {
    const sameSite: Record<string, string>[] = [
      { origin: baseUrl },
      { 'sec-fetch-site': 'same-origin' },
      { origin: baseUrl, 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      {},
    ];
    for (const headers of sameSite) {
      const issued = await session.post('/account/api-keys', { name: 'ok' }, headers);
      expect({ headers, status: issued.status }).toEqual({ headers, status: 200 });
    }
  });

  it('leaves reads, and requests made with an API key, alone', async () => {
    expect((await session.get('/account', { origin: EVIL })).status).toBe(200);
    const { key } = (await session.post('/account/api-keys', { name: 'api' })).body.data;
    const wallet = await session.post(
      '/wallets',
      { network: 'solana' },
      { 'api-key': key, origin: EVIL, cookie: '' },
    );
    expect(wallet.status).toBe(200);
  });
});
