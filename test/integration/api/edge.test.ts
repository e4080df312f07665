import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { PROTOTYPE_NAMES } from '@test/support/prototype-names';
import { Keypair } from '@solana/web3.js';
import { startApiInProcess } from '@test/support/api-app';
import { expectError, UUID } from '@test/support/envelope-assertions';
import { HttpClient, type HttpResponse } from '@test/support/http-client';
import { rawRequest, type RawResponse } from '@test/support/raw-http';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

/**
 * The HTTP edge: whatever a stranger sends, the answer is the contract's error envelope with an
 * x-request-id and the right status (never a 500, never Node's or Fastify's own body), and a
 * connection that sends too little is closed within seconds. Requests no HTTP client would send
 * go over raw sockets. No chain is needed: every refusal here comes before one is asked.
 */

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
/** Longer than the request timeout: a write waiting for its operation must not be cut. */
const SYNC_WAIT_MS = 4_000;
/** Node checks for expired requests every second; allowance for a loaded machine on top. */
const TIMEOUT_SLACK_MS = 2_500;

const PASSWORD = 'correct horse battery staple';
const TOKEN = { network: 'solana', name: 'Edge', symbol: 'EDGE', amount: 1 };
const COLLECTION = {
  network: 'solana',
  name: 'Edge',
  description: 'A collection',
  images: ['https://example.com/c.png'],
};
const ITEM = { name: 'Item', images: ['https://example.com/i.png'] };

/** A raw response as the HttpClient's, for the shared envelope assertions. */
function asHttpResponse(raw: RawResponse): HttpResponse {
  return { status: raw.status ?? 0, headers: new Headers(raw.headers), body: raw.body };
}

/** The error envelope with this status and name, and an x-request-id header. */
function expectEdgeError(
  response: HttpResponse | RawResponse,
  status: number,
  error: string,
  message?: RegExp,
): void {
  const http = 'elapsedMs' in response ? asHttpResponse(response) : response;
  expectError(http, status, error, message);
  expect(http.headers.get('x-request-id')).toBeTruthy();
}

/** `value` wrapped in `levels` arrays. */
function nested(levels: number, value = '1'): string {
  return '['.repeat(levels) + value + ']'.repeat(levels);
}

describe('The HTTP edge', () => {
  let services: TestServices;
  let app: NestFastifyApplication;
  let http: HttpClient;
  let session: HttpClient;
  let api: HttpClient;
  let email: string;

  beforeAll(async () => {
    services = await startTestServices();
    ({ app, http } = await startApiInProcess(services, {
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      SYNC_WAIT_MS: String(SYNC_WAIT_MS),
    }));
    session = new HttpClient(http.baseUrl);
    email = `edge-${Date.now()}@example.com`;
    expect((await session.post('/account/register', { email, password: PASSWORD })).status).toBe(
      200,
    );
    const key = await session.post('/account/api-keys', { name: 'edge' });
    api = http.with({ 'api-key': key.body.data.key });
  });

  afterAll(async () => {
    await app?.close();
    await services?.stop();
  });

  /** An HTTP/1.1 request head (without the blank line that ends it). */
  const head = (requestLine: string, ...headers: string[]): string =>
    [requestLine, 'Host: 127.0.0.1', 'Connection: close', ...headers].join('\r\n') + '\r\n';

  describe('input the database cannot store is 400, naming the field', () => {
    const NUL = 'a NUL character';
    const SURROGATE = 'a lone UTF-16 surrogate';
    const cases: [string, () => HttpClient, string, Record<string, unknown>, string, string][] = [
      [
        'a registration email',
        () => http,
        '/account/register',
        { email: 'a\u0000@example.com', password: PASSWORD },
        'email',
        NUL,
      ],
      [
        'a registration email',
        () => http,
        '/account/register',
        { email: '\ud800@example.com', password: PASSWORD },
        'email',
        SURROGATE,
      ],
      [
        'a login email',
        () => http,
        '/account/login',
        { email: 'a\u0000@example.com', password: PASSWORD },
        'email',
        NUL,
      ],
      ["an API key's name", () => session, '/account/api-keys', { name: 'key\u0000' }, 'name', NUL],
      ["a token's name", () => api, '/tokens', { ...TOKEN, name: 'T\u0000' }, 'name', NUL],
      ["a token's name", () => api, '/tokens', { ...TOKEN, name: 'T\udc00' }, 'name', SURROGATE],
      ["a collection's name", () => api, '/nfts', { ...COLLECTION, name: 'C\u0000' }, 'name', NUL],
      [
        "a collection's name",
        () => api,
        '/nfts',
        { ...COLLECTION, name: '\ud800C' },
        'name',
        SURROGATE,
      ],
      [
        "an attribute's value",
        () => api,
        '/nfts',
        { ...COLLECTION, attributes: [{ trait_type: 'a', value: 'b\u0000' }] },
        'attributes.0.value',
        NUL,
      ],
      [
        "an item attribute's value",
        () => api,
        `/nfts/${Keypair.generate().publicKey.toBase58()}/mint`,
        { ...ITEM, attributes: [{ trait_type: 'a', value: '\ud800' }] },
        'attributes.0.value',
        SURROGATE,
      ],
    ];

    it.each(cases)('%s with %#', async (_, client, path, body, field, what) => {
      const response = await client().post(path, body);
      expectEdgeError(response, 400, 'Bad request');
      expect(response.body.message).toContain(`${field} contains ${what}`);
    });

    it('looks at field names too (attributes are free-form objects)', async () => {
      const response = await api.post('/nfts', {
        ...COLLECTION,
        attributes: [{ ['trait\u0000type']: 'a' }],
      });
      expectEdgeError(
        response,
        400,
        'Bad request',
        /attributes\.0 has a field name that contains a NUL character/,
      );
    });
  });

  describe("names of an object's prototype are unknown fields like any other", () => {
    it.each(PROTOTYPE_NAMES)('%s is 400 on POST /tokens and POST /wallets', async (name) => {
      for (const [path, body] of [
        ['/tokens', TOKEN],
        ['/wallets', { network: 'solana' }],
      ] as const) {
        const response = await api.post(path, { ...body, [name]: 'x' });
        expectEdgeError(
          response,
          400,
          'Bad request',
          new RegExp(`${name} is not an accepted field`),
        );
      }
    });
  });

  describe('JSON nested deeper than 32 levels', () => {
    it('is 400 on public and authenticated routes; 32 levels are read as usual', async () => {
      const tooDeep = `{"email":${nested(32)},"password":"x"}`;
      for (const [client, path] of [
        [http, '/account/login'],
        [http, '/account/register'],
        [api, '/tokens'],
      ] as const) {
        const response = await client.raw('POST', path, tooDeep, 'application/json');
        expectEdgeError(response, 400, 'Bad request', /nested deeper than 32 levels/);
      }
      const deepest = await http.raw(
        'POST',
        '/account/login',
        `{"email":${nested(31)},"password":"x"}`,
        'application/json',
      );
      expectEdgeError(deepest, 400, 'Bad request', /email/);
      expect(deepest.body.message).not.toMatch(/nested/);
    });

    it('costs next to nothing for a 1 MB body of nested arrays', async () => {
      const body = `{"email":${nested(500_000)}}`;
      const before = process.cpuUsage();
      const response = await http.raw('POST', '/account/register', body, 'application/json');
      const used = process.cpuUsage(before);
      expectEdgeError(response, 400, 'Bad request', /nested deeper than 32 levels/);
      // Parsing and validating it took about 0.8 s of CPU (this process is client and server).
      expect((used.user + used.system) / 1000).toBeLessThan(200);
    });
  });

  describe("the framework's own refusals are in the envelope", () => {
    it('a malformed %-escape in the path is 400', async () => {
      const response = await api.get('/tokens/%zz', { 'x-request-id': 'edge-bad-url' });
      expectEdgeError(response, 400, 'Bad request', /malformed %-escape/);
      expect(response.headers.get('x-request-id')).toBe('edge-bad-url');
    });

    it('a path parameter over 100 characters is 414', async () => {
      const response = await api.get(`/tokens/${'a'.repeat(101)}`);
      expectEdgeError(response, 414, 'URI too long', /over 100 characters/);
    });

    it('an unknown method is 405', async () => {
      const response = await rawRequest(http.baseUrl, head('FOO /health HTTP/1.1') + '\r\n');
      expectEdgeError(response, 405, 'Method not allowed');
      expect(response.headers['x-request-id']).toMatch(UUID);
    });

    it('headers over 16 KB are 431', async () => {
      const big = `x-big: ${'a'.repeat(17 * 1024)}`;
      const response = await rawRequest(http.baseUrl, head('GET /health HTTP/1.1', big) + '\r\n');
      expectEdgeError(response, 431, 'Request header fields too large');
    });

    it('malformed HTTP is 400', async () => {
      const badChunk = head(
        'POST /account/login HTTP/1.1',
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
      );
      const response = await rawRequest(http.baseUrl, `${badChunk}\r\nzz\r\n`);
      expectEdgeError(response, 400, 'Bad request', /not valid HTTP/);
    });

    it('an Expect header other than 100-continue is 417', async () => {
      const response = await rawRequest(
        http.baseUrl,
        head('GET /health HTTP/1.1', 'Expect: fuzz', 'x-request-id: edge-expect') + '\r\n',
      );
      expectEdgeError(response, 417, 'Expectation failed', /Expect header "fuzz"/);
      expect(response.headers['x-request-id']).toBe('edge-expect');
    });

    it('CONNECT is 405 in the envelope, not a closed socket', async () => {
      const response = await rawRequest(
        http.baseUrl,
        'CONNECT 127.0.0.1:6379 HTTP/1.1\r\nHost: 127.0.0.1:6379\r\n\r\n',
      );
      expectEdgeError(response, 405, 'Method not allowed', /CONNECT/);
      expect(response.headers['x-request-id']).toMatch(UUID);
    });

    it('an HTTP/1.1 request without Host is 400', async () => {
      const response = await rawRequest(
        http.baseUrl,
        'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n',
      );
      expectEdgeError(response, 400, 'Bad request', /Host header/);
    });
  });

  describe('bodies are application/json only', () => {
    it.each([
      [
        'a form',
        'application/x-www-form-urlencoded',
        (e: string) => `email=${encodeURIComponent(e)}&password=${encodeURIComponent(PASSWORD)}`,
      ],
      ['text', 'text/plain', (e: string) => JSON.stringify({ email: e, password: PASSWORD })],
      ['multipart', 'multipart/form-data; boundary=x', () => '--x--'],
    ])('%s is 415 and does nothing (here: no login)', async (_, contentType, body) => {
      const response = await http.raw('POST', '/account/login', body(email), contentType);
      expectEdgeError(response, 415, 'Unsupported media type', /application\/json/);
      expect(response.headers.get('set-cookie')).toBeNull();
    });

    it('a body without Content-Type is 415', async () => {
      const body = JSON.stringify({ email, password: PASSWORD });
      const response = await rawRequest(
        http.baseUrl,
        head('POST /account/login HTTP/1.1', `Content-Length: ${body.length}`) + `\r\n${body}`,
      );
      expectEdgeError(response, 415, 'Unsupported media type');
    });
  });

  describe('slow and unfinished requests are closed within seconds', () => {
    it('a connection that sends nothing gets 408 and is closed', async () => {
      const response = await rawRequest(http.baseUrl, '', 20_000);
      expect(response.closedByServer).toBe(true);
      expect(response.elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS + TIMEOUT_SLACK_MS);
      expectEdgeError(response, 408, 'Request timeout');
    });

    it('headers that never finish get 408', async () => {
      const response = await rawRequest(
        http.baseUrl,
        'GET /health HTTP/1.1\r\nHost: x\r\n',
        20_000,
      );
      expect(response.closedByServer).toBe(true);
      expect(response.elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS + TIMEOUT_SLACK_MS);
      expectEdgeError(response, 408, 'Request timeout');
    });

    it('a body that never finishes (Content-Length 100, 14 bytes sent) gets 408', async () => {
      const response = await rawRequest(
        http.baseUrl,
        head(
          'POST /account/login HTTP/1.1',
          'Content-Type: application/json',
          'Content-Length: 100',
        ) + '\r\n{"email":"a@b"',
        20_000,
      );
      expect(response.closedByServer).toBe(true);
      expect(response.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + TIMEOUT_SLACK_MS);
      expectEdgeError(response, 408, 'Request timeout');
    });

    it('a write waiting for its operation past the request timeout is not cut', async () => {
      // No worker runs: the token waits SYNC_WAIT_MS for confirmation, then is answered 202.
      const started = Date.now();
      const response = await api.post('/tokens', TOKEN);
      expect(response.status).toBe(202);
      expect(Date.now() - started).toBeGreaterThanOrEqual(SYNC_WAIT_MS - 100);
    });
  });

  it('answers /health as usual after all of it', async () => {
    const health = await http.get('/health');
    expect(health.headers.get('x-request-id')).toMatch(UUID);
    expect(health.body.data).toMatchObject({ postgres: 'ok', redis: 'ok' });
  });
});
