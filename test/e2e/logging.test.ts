import { HttpClient } from '@test/support/http-client';
import { logLines, waitForLogLine } from '@test/support/log-lines';
import { rawRequest } from '@test/support/raw-http';
import { freePort, startServiceProcess } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

const REDACTED = '[Redacted]';
const PARTNER_TOKEN = 'partner-token-that-only-the-configuration-redacts';

async function eventually<T>(find: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`No log line: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('structured logs', () => {
  let stack: ServiceStack;

  beforeAll(async () => {
    stack = await startServiceStack({
      env: { LOG_REDACT_PATHS: 'req.headers["x-partner-token"]', LOG_REQUEST_HEADERS: 'true' },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('follows a request into the worker by its ids, in JSON lines with secrets redacted', async () => {
    const password = 'a password that must never reach a log';
    const session = new HttpClient(stack.http.baseUrl);
    const registered = await session.post('/account/register', {
      email: `logs-${Date.now()}@example.com`,
      password,
    });
    expect(registered.status).toBe(200);
    const sessionToken = /=([^;]+)/.exec(registered.headers.get('set-cookie') ?? '')?.[1];
    expect(sessionToken).toBeTruthy();
    const key: string = (await session.post('/account/api-keys', { name: 'logs' })).body.data.key;
    const api = stack.http.with({ 'api-key': key, 'x-partner-token': PARTNER_TOKEN });
    const wallet = await api.post('/wallets', { network: 'solana' });
    expect(wallet.status).toBe(200);

    const requestId = `logs-${Date.now()}`;
    const created = await api.post(
      '/tokens',
      { network: 'base', name: 'Logged', symbol: 'LOG', decimals: 6, amount: '1000' },
      { 'x-request-id': requestId },
    );
    expect(created.status).toBe(200);
    expect(created.headers.get('x-request-id')).toBe(requestId);
    const { operation_id: operationId, tx } = created.body.data;

    const confirmed = await eventually(
      () =>
        logLines(stack.workers[0]).find(
          (line) => line.msg === 'Operation confirmed' && line.operationId === operationId,
        ),
      'worker confirming the operation',
    );
    // The worker's line carries the id of the HTTP request that made the operation.
    expect(confirmed).toMatchObject({
      service: 'worker',
      level: 'info',
      requestId,
      jobId: operationId,
      queue: expect.stringMatching(/^\{operations-base-\d+\}$/),
      attempt: 1,
      kind: 'token.create',
      network: 'base',
      txHash: tx,
    });

    // Written once the response has gone out, so possibly after the client has it.
    const request = await eventually(
      () =>
        logLines(stack.api).find(
          (line) => line.msg === 'request completed' && line.requestId === requestId,
        ),
      'the API completing the request',
    );
    const apiLines = logLines(stack.api);
    expect(apiLines).toContainEqual(
      expect.objectContaining({ msg: 'Operation accepted', requestId, operationId }),
    );
    expect(request).toMatchObject({
      service: 'api',
      req: { method: 'POST', url: '/tokens', route: '/tokens' },
      res: { statusCode: 200 },
    });
    expect(request.responseTimeMs).toEqual(expect.any(Number));
    // Headers are logged on request, credentials in them redacted: built-in and configured paths.
    expect(request.req.headers).toMatchObject({
      'x-request-id': requestId,
      'api-key': REDACTED,
      'x-partner-token': REDACTED,
    });
    const register = apiLines.find((line) => line.req?.url === '/account/register');
    expect(register!.res.headers['set-cookie']).toBe(REDACTED);
    const keyIssue = apiLines.find((line) => line.req?.url === '/account/api-keys');
    expect(keyIssue!.req.headers.cookie).toBe(REDACTED);

    for (const line of [...apiLines, ...logLines(stack.workers[0])]) {
      expect(line).toEqual(
        expect.objectContaining({
          level: expect.any(String),
          time: expect.any(String),
          service: expect.any(String),
        }),
      );
    }
    const everything = stack.api.output() + stack.workers[0].output();
    for (const secret of [
      password,
      key,
      sessionToken!,
      PARTNER_TOKEN,
      wallet.body.data.secret_key,
    ]) {
      expect(everything).not.toContain(secret);
    }
  });

  it('keeps an API key sent in the URL out of the log, and tells the client it leaked', async () => {
    const { key } = await newAccountClient(stack.http);
    const requestId = `key-in-url-${Date.now()}`;
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    const leaked = await stack.http.get(`/wallets/${address}?network=base&api-key=${key}`, {
      'x-request-id': requestId,
    });
    expect(leaked.status).toBe(401);
    expect(leaked.body.message).toMatch(
      /^Invalid api-key: an API key was sent in the URL.*revoke and replace this key as leaked\.$/,
    );
    const line = await waitForLogLine(
      stack.api,
      (l) => l.msg === 'request completed' && l.requestId === requestId,
    );
    expect(line.req.url).toBe(`/wallets/${address}?network=base&api-key=${REDACTED}`);
    expect(stack.api.output()).not.toContain(key);
  });

  it('answers and logs a CONNECT request, which reaches no route', async () => {
    const requestId = `connect-${Date.now()}`;
    const response = await rawRequest(
      stack.http.baseUrl,
      `CONNECT 127.0.0.1:6379 HTTP/1.1\r\nHost: 127.0.0.1:6379\r\nx-request-id: ${requestId}\r\n\r\n`,
    );
    expect(response).toMatchObject({ status: 405, headers: { 'x-request-id': requestId } });
    const line = await waitForLogLine(
      stack.api,
      (l) => l.msg === 'client error' && l.requestId === requestId,
    );
    expect(line).toMatchObject({ status: 405, method: 'CONNECT', url: '127.0.0.1:6379' });
  });

  it('starts, and says so, at LOG_LEVEL=error, with nothing below error otherwise', async () => {
    const env = { ...stack.env, LOG_LEVEL: 'error', API_PORT: String(await freePort()) };
    const [api, worker] = await Promise.all([
      startServiceProcess('api', env, /API listening/),
      startServiceProcess('worker', env, /Worker ready/),
    ]);
    try {
      const health = await new HttpClient(`http://127.0.0.1:${env.API_PORT}`).get('/health');
      expect(health.status).toBe(200);
      for (const line of [...logLines(api), ...logLines(worker)]) {
        if (line.level !== 'error') expect(line).toMatchObject({ context: 'Lifecycle' });
      }
    } finally {
      await Promise.all([api.stop(), worker.stop()]);
    }
  });

  it('logs a line per request without its headers by default', async () => {
    const env = { ...stack.env, LOG_REQUEST_HEADERS: 'false', API_PORT: String(await freePort()) };
    const api = await startServiceProcess('api', env, /API listening/);
    try {
      const requestId = `plain-${Date.now()}`;
      const http = new HttpClient(`http://127.0.0.1:${env.API_PORT}`);
      expect((await http.get('/health', { 'x-request-id': requestId })).status).toBe(200);
      const line = await eventually(
        () => logLines(api).find((l) => l.msg === 'request completed' && l.requestId === requestId),
        'the API completing the request',
      );
      expect(line).toMatchObject({
        req: { method: 'GET', url: '/health', route: '/health' },
        res: { statusCode: 200 },
      });
      expect(line.req.headers).toBeUndefined();
      expect(line.res.headers).toBeUndefined();
    } finally {
      await api.stop();
    }
  });
});
