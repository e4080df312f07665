import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@app/config';
import { WebhookSender } from '@app/domain';

jest.setTimeout(30_000);

/** A server on 127.0.0.1 counting its connections; `handle` answers each request. */
async function server(
  handle: Parameters<typeof createServer>[1],
): Promise<{ url: string; port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const http: Server = createServer(handle);
  http.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    connections: () => connections,
    close: () => {
      http.closeAllConnections();
      return new Promise((resolve) => http.close(() => resolve()));
    },
  };
}

const env = (profile: string) => ({
  APP_PROFILE: profile,
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused',
  REDIS_URL: 'redis://127.0.0.1:6379',
  MASTER_KEYS: 'k1:' + Buffer.alloc(32, 3).toString('base64'),
  WEBHOOK_TIMEOUT_MS: '500',
});

const webhook = (url: string) => ({
  url,
  headers: { 'webhook-id': 'evt_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
  body: '{"id":"evt_1"}',
});

/** One webhook request as the sender makes it, against real sockets. */
describe('webhook sender', () => {
  const local = new WebhookSender(loadConfig(env('local')));
  const devnet = new WebhookSender(loadConfig(env('devnet')));
  afterAll(() => {
    local.onApplicationShutdown();
    devnet.onApplicationShutdown();
  });

  it('posts the body with the headers and takes a 2xx as delivered', async () => {
    let seen: { headers: Record<string, unknown>; body: string } | undefined;
    const receiver = await server((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen = { headers: request.headers, body };
        response.writeHead(204).end();
      });
    });
    const result = await local.send(webhook(receiver.url));
    expect(result).toMatchObject({ ok: true, status: 204, error: null });
    expect(seen?.body).toBe('{"id":"evt_1"}');
    expect(seen?.headers).toMatchObject({
      'webhook-id': 'evt_1',
      'content-type': 'application/json',
      'content-length': '14',
    });
    await receiver.close();
  });

  it('logs a failed answer with the start of its body, and reads no more than a few KB', async () => {
    const receiver = await server((_, response) => {
      response.writeHead(500).end('x'.repeat(1_000_000));
    });
    const result = await local.send(webhook(receiver.url));
    expect(result.ok).toBe(false);
    expect(result.status).toBe(500);
    expect(result.error).toMatch(/^HTTP 500: x+…\[\+\d+ chars\]$/);
    expect(result.error!.length).toBeLessThanOrEqual(200 + 'HTTP 500: '.length);
    await receiver.close();
  });

  it('does not follow redirects', async () => {
    const target = await server((_, response) => response.writeHead(200).end());
    const redirecting = await server((_, response) =>
      response.writeHead(302, { location: target.url }).end(),
    );
    const result = await local.send(webhook(redirecting.url));
    expect(result).toMatchObject({ ok: false, status: 302 });
    expect(result.error).toContain('redirects are not followed');
    expect(target.connections()).toBe(0);
    await Promise.all([target.close(), redirecting.close()]);
  });

  it('gives up on a receiver that does not answer within WEBHOOK_TIMEOUT_MS', async () => {
    const stalling = await server(() => undefined);
    const started = Date.now();
    const result = await local.send(webhook(stalling.url));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toBe('request failed: timed out after 500 ms');
    await stalling.close();
  });

  it('outside local, refuses at connection time a name resolving to a loopback address', async () => {
    const receiver = await server((_, response) => response.writeHead(200).end());
    const result = await devnet.send(webhook(`https://localhost:${receiver.port}/hooks`));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    );
    expect(receiver.connections()).toBe(0);

    const literal = await devnet.send(webhook(`https://127.0.0.1:${receiver.port}/hooks`));
    expect(literal.error).toBe('refused: 127.0.0.1 is a loopback address');
    const plain = await devnet.send(webhook(receiver.url));
    expect(plain.error).toBe('refused: the URL is not https');
    const sixToFour = await devnet.send(webhook(`https://[2002:7f00:1::]:${receiver.port}/`));
    expect(sixToFour.error).toBe(
      'refused: 2002:7f00:1:: is a 6to4 address embedding 127.0.0.1, a loopback address',
    );
    expect(receiver.connections()).toBe(0);
    await receiver.close();
  });

  it('in the local profile, takes loopback receivers by name and refuses other private ones', async () => {
    const receiver = await server((_, response) => response.writeHead(200).end());
    const byName = await local.send(webhook(`http://localhost:${receiver.port}/hooks`));
    expect(byName).toMatchObject({ ok: true, status: 200 });
    for (const [host, kind] of [
      ['169.254.169.254', 'a link-local'],
      ['10.0.0.1', 'a private'],
      ['0.0.0.0', 'an unspecified'],
    ]) {
      const refused = await local.send(webhook(`http://${host}:${receiver.port}/hooks`));
      expect(refused).toMatchObject({ ok: false, status: null });
      expect(refused.error).toBe(`refused: ${host} is ${kind} address`);
    }
    await receiver.close();
  });
});
