import { AssetIssuanceClient } from './client';
import { AssetIssuanceError, OperationTimeoutError } from './errors';

/** A fetch that answers from a script and keeps what it was sent. */
function scripted(answers: (Response | Error)[]) {
  const sent: { url: string; init: RequestInit }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    if (next instanceof Error) throw next;
    return next;
  }) as unknown as typeof globalThis.fetch;
  return { fetch, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
const operation = (status: string) => ({
  operation_id: '7a0f5c8e-7a71-4d6b-9b43-0b7c1f0f2a11',
  kind: 'nft.mint',
  status,
  network: 'solana',
  tx: null,
  created_at: '2026-01-01T00:00:00.000Z',
});
const ok = (data: unknown) => json(200, { success: true, data, message: 'OK.' });
const headerOf = (init: RequestInit, name: string) =>
  (init.headers as Record<string, string>)[name];

function client(fetch: typeof globalThis.fetch) {
  return new AssetIssuanceClient({
    baseUrl: 'http://api.test/',
    apiKey: 'ak_test',
    retryDelayMs: 1,
    fetch,
  });
}

const mintBody = { name: 'Item', images: ['https://example.com/a.png'] };

describe('AssetIssuanceClient', () => {
  it('sends the api key, fills the path, answers the envelope data', async () => {
    const { fetch, sent } = scripted([ok(operation('confirmed'))]);
    const answer = await client(fetch).post('/nfts/{mint_address}/mint', {
      path: { mint_address: 'So1/ana' },
      body: mintBody,
    });
    expect(answer.status).toBe('confirmed');
    expect(sent[0].url).toBe('http://api.test/nfts/So1%2Fana/mint');
    expect(headerOf(sent[0].init, 'api-key')).toBe('ak_test');
    expect(JSON.parse(sent[0].init.body as string)).toEqual(mintBody);
  });

  it('retries a write after a network error, 429 and 503 with the same Idempotency-Key', async () => {
    const { fetch, sent } = scripted([
      new TypeError('fetch failed'),
      json(429, { success: false, error: 'Too many requests', message: 'slow down' }),
      json(
        503,
        { success: false, error: 'Service unavailable', message: 'db' },
        { 'retry-after': '0' },
      ),
      ok(operation('confirmed')),
    ]);
    await client(fetch).post('/nfts/{mint_address}/mint', {
      path: { mint_address: 'x' },
      body: mintBody,
    });
    const keys = sent.map(({ init }) => headerOf(init, 'idempotency-key'));
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it('generates a new key per call and keeps the one given', async () => {
    const { fetch, sent } = scripted([ok(operation('queued')), ok(operation('queued'))]);
    const api = client(fetch);
    await api.post('/tokens/{mint_address}/burn', {
      path: { mint_address: 'm' },
      body: { amount: 1 },
    });
    await api.post('/tokens/{mint_address}/burn', {
      path: { mint_address: 'm' },
      body: { amount: 1 },
      idempotencyKey: 'mine-1',
      respondAsync: true,
    });
    expect(headerOf(sent[0].init, 'idempotency-key')).not.toBe('mine-1');
    expect(headerOf(sent[1].init, 'idempotency-key')).toBe('mine-1');
    expect(headerOf(sent[1].init, 'prefer')).toBe('respond-async');
  });

  it('does not resend a write without idempotency after a network error', async () => {
    const { fetch, sent } = scripted([new TypeError('fetch failed'), ok({})]);
    await expect(
      client(fetch).post('/webhooks', { body: { url: 'https://x.test' } }),
    ).rejects.toThrow('fetch failed');
    expect(sent).toHaveLength(1);
  });

  it('stops after `retries` and throws the last error envelope', async () => {
    const busy = () => json(503, { success: false, error: 'Service unavailable', message: 'down' });
    const { fetch, sent } = scripted([busy(), busy(), busy(), busy()]);
    const error = await client(fetch)
      .get('/networks')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AssetIssuanceError);
    expect(error).toMatchObject({ status: 503, error: 'Service unavailable', message: 'down' });
    expect(sent).toHaveLength(4);
  });

  it('throws a typed error with the envelope and the request id, without retrying a 409', async () => {
    const { fetch, sent } = scripted([
      json(
        409,
        { success: false, error: 'Conflict', message: 'key reused', timestamp: 'x' },
        { 'x-request-id': 'req-1' },
      ),
    ]);
    const error = await client(fetch)
      .post('/tokens', {
        body: { network: 'evm', name: 'T', symbol: 'T', amount: '1' },
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      status: 409,
      error: 'Conflict',
      message: 'key reused',
      requestId: 'req-1',
    });
    expect(sent).toHaveLength(1);
  });

  it('waits for an operation until it settles', async () => {
    const { fetch, sent } = scripted([
      ok(operation('queued')),
      ok(operation('submitted')),
      ok(operation('confirmed')),
    ]);
    const settled = await client(fetch).waitForOperation('op-1', { intervalMs: 1 });
    expect(settled.status).toBe('confirmed');
    expect(sent.map((s) => s.url)).toEqual(Array(3).fill('http://api.test/operations/op-1'));
  });

  it('gives up waiting after timeoutMs', async () => {
    const { fetch } = scripted(Array.from({ length: 50 }, () => ok(operation('submitted'))));
    await expect(
      client(fetch).waitForOperation('op-2', { timeoutMs: 20, intervalMs: 5 }),
    ).rejects.toBeInstanceOf(OperationTimeoutError);
  });

  it('types paths, parameters and bodies (checked by tsc)', () => {
    const api = client(scripted([]).fetch);
    const unsent = () => {
      // @ts-expect-error a write without its body
      void api.post('/nfts');
      // @ts-expect-error a path parameter missing
      void api.get('/nfts/{mint_address}');
      // @ts-expect-error no such route
      void api.get('/nowhere');
      // @ts-expect-error a field the API does not take
      void api.post('/wallets', { body: { network: 'solana', extra: 1 } });
    };
    expect(typeof unsent).toBe('function');
  });
});
