import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerSession } from '@test/support/accounts';
import { startApiInProcess } from '@test/support/api-app';
import type { HttpClient } from '@test/support/http-client';
import { queryDatabase } from '@test/support/chain-reads';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const patch = (client: HttpClient, path: string, body: unknown) =>
  client.request<any>('PATCH', path, body, {});

/**
 * /webhooks through the API: endpoints created, listed, changed, rotated and deleted, with the
 * secret shown only on creation and rotation and stored sealed; bad input refused with 400.
 */
describe('webhook endpoints API', () => {
  let services: TestServices;
  let app: NestFastifyApplication;
  let session: HttpClient;

  beforeAll(async () => {
    services = await startTestServices();
    ({ app } = await startApiInProcess(services, { WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '3' }));
    ({ session } = await registerSession(await app.getUrl(), 'webhooks'));
  });

  afterAll(async () => {
    await app?.close();
    await services?.stop();
  });

  it('creates an endpoint with a secret shown once, stored sealed', async () => {
    const created = await session.post('/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      event_types: ['operation.confirmed', 'operation.failed'],
      description: 'backend',
    });
    expect(created.status).toBe(200);
    const endpoint = created.body.data;
    expect(endpoint).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      event_types: ['operation.confirmed', 'operation.failed'],
      description: 'backend',
      enabled: true,
      disabled_reason: null,
      previous_secret_expires_at: null,
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const read = await session.get(`/webhooks/${endpoint.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.secret).toBeUndefined();
    const listed = await session.get('/webhooks');
    expect(listed.body.data.webhooks.map((w: { id: string }) => w.id)).toContain(endpoint.id);

    const [row] = await queryDatabase(
      services.databaseUrl,
      `SELECT encode(secret_ciphertext, 'escape') AS sealed FROM webhook_endpoints WHERE id = $1`,
      [endpoint.id],
    );
    expect(row.sealed).not.toContain(endpoint.secret.slice('whsec_'.length));

    const audit = await session.get('/account/audit');
    expect(audit.body.data.entries.map((e: { type: string }) => e.type)).toContain(
      'webhook_endpoint.created',
    );
    await session.delete(`/webhooks/${endpoint.id}`);
  });

  it('updates, rotates with a grace period, and deletes', async () => {
    const { id, secret } = (await session.post('/webhooks', { url: 'http://127.0.0.1:9/a' })).body
      .data;
    const updated = await patch(session, `/webhooks/${id}`, {
      url: 'http://127.0.0.1:9/b',
      enabled: false,
      event_types: ['api_key.created'],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      url: 'http://127.0.0.1:9/b',
      enabled: false,
      event_types: ['api_key.created'],
    });

    const rotated = await session.post(`/webhooks/${id}/rotate-secret`, {
      grace_period_seconds: 3600,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(secret);
    const graceEnds = Date.parse(rotated.body.data.previous_secret_expires_at);
    expect(graceEnds - Date.now()).toBeGreaterThan(3_500_000);
    expect(graceEnds - Date.now()).toBeLessThanOrEqual(3_600_000);

    const noGrace = await session.post(`/webhooks/${id}/rotate-secret`, {
      grace_period_seconds: 0,
    });
    expect(noGrace.body.data.previous_secret_expires_at).toBeNull();

    expect((await session.delete(`/webhooks/${id}`)).status).toBe(200);
    expect((await session.get(`/webhooks/${id}`)).status).toBe(404);
    expect((await session.delete(`/webhooks/${id}`)).status).toBe(404);
  });

  it('refuses bad input with 400, unknown endpoints with 404, past the cap with 409', async () => {
    const bad = [
      {},
      { url: 'not a url' },
      { url: 'ftp://example.com/x' },
      { url: 'http://user:pass@127.0.0.1/x' },
      { url: 'http://127.0.0.1/x', event_types: ['operation.exploded'] },
      { url: 'http://127.0.0.1/x', surprise: true },
      { url: 'http://127.0.0.1/x', enabled: 'yes' },
    ];
    for (const body of bad) {
      const response = await session.post('/webhooks', body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect(response.body.success).toBe(false);
    }
    expect((await session.get('/webhooks/not-a-uuid')).status).toBe(404);
    expect((await session.get('/webhooks/00000000-0000-4000-8000-000000000000')).status).toBe(404);

    const { id } = (await session.post('/webhooks', { url: 'http://127.0.0.1:9/c' })).body.data;
    const replays = [
      {},
      { from_sequence: 1, since: new Date().toISOString() },
      { from_sequence: 0 },
      { since: 'yesterday' },
      { delivery_id: 'nope' },
    ];
    for (const body of replays) {
      expect((await session.post(`/webhooks/${id}/replay`, body)).status).toBe(400);
    }
    expect(
      (await session.post(`/webhooks/${id}/rotate-secret`, { grace_period_seconds: 8 * 86_400 }))
        .status,
    ).toBe(400);
    expect((await session.get(`/webhooks/${id}/deliveries?status=lost`)).status).toBe(400);

    const more = await Promise.all(
      [1, 2, 3].map(() => session.post('/webhooks', { url: 'http://127.0.0.1:9/d' })),
    );
    expect(more.map((r) => r.status).sort()).toEqual([200, 200, 409]);
  });

  it('refuses a null field with 400 naming it: a null is not a value', async () => {
    const { id } = (await session.get('/webhooks')).body.data.webhooks[0];
    for (const body of [{ url: null }, { url: null, description: 'x' }, { enabled: null }]) {
      const changed = await patch(session, `/webhooks/${id}`, body);
      expect({ body, status: changed.status }).toEqual({ body, status: 400 });
      expect(changed.body.message).toContain(`${Object.keys(body)[0]} must not be null`);
    }
    for (const field of ['from_sequence', 'since', 'delivery_id']) {
      const replay = await session.post(`/webhooks/${id}/replay`, { [field]: null });
      expect({ field, status: replay.status }).toEqual({ field, status: 400 });
      expect(replay.body.message).toContain(`${field} must not be null`);
    }
  });

  it('takes http and loopback receivers in the local profile, and refuses the rest as outside it', async () => {
    // An account of its own: the tests above leave this one at its cap of endpoints.
    const { session } = await registerSession(await app.getUrl(), 'webhooks-local');
    for (const [url, reason] of [
      ['http://169.254.169.254/latest', 'link-local address (169.254.169.254)'],
      ['http://10.0.0.1/hook', 'private address (10.0.0.1)'],
      ['http://192.168.1.1/hook', 'private address (192.168.1.1)'],
      ['http://[fe80::1]/hook', 'link-local address (fe80::1)'],
      ['http://0.0.0.0/hook', 'unspecified address (0.0.0.0)'],
      ['http://[2002:7f00:1::]/hook', '6to4 address embedding 127.0.0.1'],
      ['http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal'],
    ]) {
      const response = await session.post('/webhooks', { url });
      expect({ url, status: response.status }).toEqual({ url, status: 400 });
      expect(response.body.message).toContain(reason);
    }
    // WHATWG URL parsing reads integer and octal hosts as the address they spell: stored so.
    for (const [url, stored] of [
      ['http://2130706433:9/int', 'http://127.0.0.1:9/int'],
      ['http://0177.0.0.1:9/octal', 'http://127.0.0.1:9/octal'],
      ['http://localhost:9/name', 'http://localhost:9/name'],
      ['http://[::1]:9/v6', 'http://[::1]:9/v6'],
    ]) {
      const created = await session.post('/webhooks', { url });
      expect({ url, status: created.status }).toEqual({ url, status: 200 });
      expect(created.body.data.url).toBe(stored);
      await session.delete(`/webhooks/${created.body.data.id}`);
    }
  });

  it("keeps one account's endpoints from another", async () => {
    const { id } = (await session.get('/webhooks')).body.data.webhooks[0];
    const other = await registerSession(session.baseUrl, 'webhooks-other');
    expect((await other.session.get(`/webhooks/${id}`)).status).toBe(404);
    expect((await other.session.delete(`/webhooks/${id}`)).status).toBe(404);
    expect((await other.session.get(`/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await other.session.get('/webhooks')).body.data.webhooks).toEqual([]);
  });
});

/** Outside the `local` profile: https only, and no host that is or resolves to a private address. */
describe('webhook URLs outside the local profile', () => {
  let services: TestServices;
  let app: NestFastifyApplication;
  let session: HttpClient;

  beforeAll(async () => {
    services = await startTestServices();
    ({ app } = await startApiInProcess(services, {
      APP_PROFILE: 'devnet',
      MASTER_KEYS: 'k1:' + Buffer.alloc(32, 9).toString('base64'),
      COOKIE_SECURE: 'false',
    }));
    ({ session } = await registerSession(await app.getUrl(), 'ssrf'));
  });

  afterAll(async () => {
    await app?.close();
    await services?.stop();
  });

  it.each([
    ['http://example.com/hook', 'url must use https'],
    ['https://127.0.0.1/hook', 'loopback address (127.0.0.1)'],
    ['https://10.0.0.1/hook', 'private address (10.0.0.1)'],
    ['https://169.254.169.254/latest', 'link-local address'],
    ['https://100.64.1.1/x', 'carrier-grade NAT address'],
    ['https://[::1]/hook', 'loopback address (::1)'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback address (::ffff:7f00:1)'],
    ['https://[::ffff:10.1.2.3]/hook', 'private address'],
    ['https://[fd00::1]/hook', 'unique local (ULA) address'],
    ['https://localhost/hook', 'localhost resolves to'],
    ['https://[2002:7f00:1::]/hook', '6to4 address embedding 127.0.0.1, a loopback address'],
    ['https://[64:ff9b:1::a9fe:a9fe]/hook', 'local-use NAT64 address'],
    ['https://[64:ff9b::a9fe:a9fe]/hook', 'NAT64 address embedding 169.254.169.254'],
    ['https://[2001::1]/hook', 'Teredo server address embedding 0.0.0.0'],
  ])('refuses %s', async (url, reason) => {
    const response = await session.post('/webhooks', { url });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain(reason);
  });

  it('refuses such a URL on update too', async () => {
    // A public address literal passes the check without a DNS lookup.
    const created = await session.post('/webhooks', { url: 'https://93.184.215.14/hook' });
    expect(created.status).toBe(200);
    const changed = await patch(session, `/webhooks/${created.body.data.id}`, {
      url: 'https://192.168.1.10/hook',
    });
    expect(changed.status).toBe(400);
    expect(changed.body.message).toContain('private address');
  });
});
