import { verifyWebhookSignature } from '@app/common';
import { waitUntil } from '@app/localnet/net.util';
import { registerSession } from '@test/support/accounts';
import type { HttpClient } from '@test/support/http-client';
import { waitForExit, waitForSettledRow } from '@test/support/operation-polling';
import { freePort } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import {
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '@test/support/webhook-receiver';

jest.setTimeout(300_000);

/** Quick retries, a short timeout and lease, so that a test sees many steps in seconds. */
const FAST_WEBHOOKS = {
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_RETRY_MAX_MS: '1000',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LEASE_MS: '5000',
  WEBHOOK_SWEEP_INTERVAL_MS: '100',
  MAX_API_KEYS_PER_ACCOUNT: '100',
};

/**
 * Webhooks end to end: real receivers on 127.0.0.1, the API and worker as processes, events made
 * by real operations on the local chain and by API key changes.
 */
describe('webhooks', () => {
  let stack: ServiceStack;
  let metricsUrl: string;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    stack = await startServiceStack({
      workers: 1,
      env: FAST_WEBHOOKS,
      workerEnv: { WORKER_METRICS_PORT: String(metricsPort) },
    });
  });

  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await stack?.stop();
  });

  async function receiver(...args: Parameters<typeof startWebhookReceiver>) {
    const started = await startWebhookReceiver(...args);
    receivers.push(started);
    return started;
  }

  /** A new account (session client) with an endpoint to `url`; answers the endpoint. */
  async function accountWithEndpoint(
    url: string,
    eventTypes: string[] = ['api_key.created'],
  ): Promise<{ session: HttpClient; id: string; secret: string }> {
    const { session } = await registerSession(stack.http.baseUrl, 'webhooks');
    const created = await session.post('/webhooks', { url, event_types: eventTypes });
    expect(created.status).toBe(200);
    return { session, id: created.body.data.id, secret: created.body.data.secret };
  }

  /** Makes an `api_key.created` event; answers the key's id (the event's data.id). */
  async function keyEvent(session: HttpClient): Promise<string> {
    const issued = await session.post('/account/api-keys', { name: 'event' });
    expect(issued.status).toBe(200);
    return issued.body.data.id;
  }

  const deliveriesOf = async (session: HttpClient, id: string, query = '') => {
    const page = await session.get(`/webhooks/${id}/deliveries${query}`);
    expect(page.status).toBe(200);
    return page.body.data.deliveries as any[];
  };

  const verified = (secret: string, webhook: ReceivedWebhook) =>
    verifyWebhookSignature(secret, webhook.headers, webhook.rawBody);

  it('delivers a confirmed and a failed operation, each signed', async () => {
    const hooks = await receiver();
    const { api } = await newAccountClient(stack.http);
    const created = await api.post('/webhooks', {
      url: hooks.url,
      event_types: ['operation.confirmed', 'operation.failed'],
    });
    const { secret } = created.body.data;

    const collection = await api.post('/nfts', {
      network: 'base',
      name: 'Hooked',
      description: 'one item at most',
      images: ['https://example.com/h.png'],
      max_supply: 1,
    });
    expect(collection.status).toBe(200);
    // Two mints accepted while no worker runs: the contract lets one through, the other fails.
    await stack.stopWorkers();
    const mint = () =>
      api.post(
        `/nfts/${collection.body.data.mint_address}/mint`,
        { name: 'item', images: ['https://example.com/i.png'] },
        { prefer: 'respond-async' },
      );
    const mints = [await mint(), await mint()];
    expect(mints.map((m) => m.status)).toEqual([202, 202]);
    await stack.startWorker();
    const ids = mints.map((m) => m.body.data.operation_id as string);
    const rows = await Promise.all(
      ids.map((id) => waitForSettledRow(stack.services.databaseUrl, id)),
    );
    expect(rows.map((row) => row.status).sort()).toEqual(['confirmed', 'failed']);

    await hooks.until((got) => got.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more comes
    expect(hooks.received).toHaveLength(3);
    for (const webhook of hooks.received) {
      expect(verified(secret, webhook)).toBe(true);
      expect(webhook.headers['webhook-id']).toBe(webhook.body.id);
      expect(webhook.headers['content-type']).toBe('application/json');
      expect(webhook.headers['user-agent']).toMatch(/^asset-issuance-engine-webhooks\//);
    }
    const byOperation = new Map(hooks.received.map((w) => [w.body.data.operation_id, w.body]));
    expect(byOperation.get(collection.body.data.operation_id)).toMatchObject({
      type: 'operation.confirmed',
      data: { status: 'confirmed', kind: 'nft.create' },
    });
    for (const [index, id] of ids.entries()) {
      const status = rows[index].status;
      expect(byOperation.get(id)).toMatchObject({
        type: `operation.${status}`,
        data: { operation_id: id, status },
      });
      // The body's operation is the one GET /operations/{id} shows.
      expect(byOperation.get(id)!.data).toEqual((await api.get(`/operations/${id}`)).body.data);
    }
    // Sent in sequence order.
    const sequences = hooks.received.map((w) => w.body.sequence);
    expect([...sequences].sort((a, b) => a! - b!)).toEqual(sequences);
  });

  it('delivers on the fourth attempt to a receiver answering 500 three times', async () => {
    const hooks = await receiver((_, index) => (index < 3 ? 500 : 200));
    const { session, id, secret } = await accountWithEndpoint(hooks.url);
    const keyId = await keyEvent(session);

    await hooks.until((got) => got.length >= 4);
    expect(hooks.received.map((w) => w.answered)).toEqual([500, 500, 500, 200]);
    // The same event each time: same id (receivers de-duplicate on it), each attempt signed.
    expect(new Set(hooks.received.map((w) => w.headers['webhook-id'])).size).toBe(1);
    expect(hooks.received[3].body).toMatchObject({ type: 'api_key.created', data: { id: keyId } });
    for (const webhook of hooks.received) expect(verified(secret, webhook)).toBe(true);
    // The retries waited: 200 ms, 400 ms, 800 ms (+-20%).
    const gaps = hooks.received.slice(1).map((w, i) => w.at - hooks.received[i].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(150);
    expect(gaps[2]).toBeGreaterThan(gaps[0]);

    let deliveries: any[] = [];
    await waitUntil(
      async () => {
        deliveries = await deliveriesOf(session, id);
        return deliveries[0]?.status === 'succeeded';
      },
      30_000,
      { intervalMs: 200 },
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      event_id: hooks.received[0].body.id,
      event_type: 'api_key.created',
      status: 'succeeded',
      attempts: 4,
      next_attempt_at: null,
      last_response_status: 200,
      last_error: null,
    });
    expect(deliveries[0].attempt_log.map((a: any) => [a.attempt, a.response_status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 200],
    ]);
    expect(deliveries[0].attempt_log[0].error).toBe('HTTP 500: answer 500');
    expect(deliveries[0].attempt_log.every((a: any) => a.latency_ms >= 0)).toBe(true);

    const metrics = await (await fetch(metricsUrl)).text();
    const count = (outcome: string) =>
      Number(
        metrics.match(new RegExp(`ais_webhook_deliveries_total{outcome="${outcome}"} (\\d+)`))?.[1],
      );
    expect(count('retrying')).toBeGreaterThanOrEqual(3);
    expect(count('succeeded')).toBeGreaterThanOrEqual(1);
  });

  it("keeps a dead receiver's deliveries retrying while operations and other accounts go on", async () => {
    const dead = await receiver(() => 'stall');
    const live = await receiver();
    const stalled = await accountWithEndpoint(dead.url);
    const healthy = await accountWithEndpoint(live.url);

    const EVENTS = 15;
    for (let i = 0; i < EVENTS; i++) await keyEvent(stalled.session);
    const { api } = await newAccountClient(stack.http);
    const tokenStarted = Date.now();
    const token = await api.post('/tokens', {
      network: 'base',
      name: 'Meanwhile',
      symbol: 'MWL',
      amount: 10,
    });
    expect(token.status).toBe(200);
    expect(token.body.data.status).toBe('confirmed');
    // Confirmed on the local chain as fast as ever (it takes well under a second there).
    expect(Date.now() - tokenStarted).toBeLessThan(3_000);
    for (let i = 0; i < EVENTS; i++) await keyEvent(healthy.session);
    await live.until((got) => got.length >= EVENTS, 10_000);
    // Each healthy delivery came right after its event: none waited on the dead receiver, whose
    // requests each hang for the whole 2 s timeout.
    const latencies = live.received.map((w) => w.at - Date.parse(w.body.created_at));
    expect(Math.max(...latencies)).toBeLessThan(1_000);

    // Let the dead receiver's pumps time out a few times.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const pending = await deliveriesOf(stalled.session, stalled.id, '?limit=100');
    expect(pending).toHaveLength(EVENTS);
    for (const delivery of pending) {
      expect(delivery.status).toBe('pending');
      expect(Date.parse(delivery.next_attempt_at)).not.toBeNaN();
    }
    const tried = pending.filter((d) => d.attempts > 0);
    expect(tried.length).toBeGreaterThan(0);
    expect(tried[0].last_error).toMatch(/timed out after 2000 ms/);
    const endpoint = (await stalled.session.get(`/webhooks/${stalled.id}`)).body.data;
    expect(endpoint.failing_since).not.toBeNull();
  });

  it('pauses an endpoint failing in a row: a few requests per backoff step, each event tried', async () => {
    const down = await receiver(() => 503);
    const { session, id } = await accountWithEndpoint(down.url);
    const EVENTS = 15;
    for (let i = 0; i < EVENTS; i++) await keyEvent(session);
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    const pending = await deliveriesOf(session, id, '?limit=100');
    expect(pending.map((d) => d.status)).toEqual(Array(EVENTS).fill('pending'));
    // Fresh events go before retries: none is held back behind the first ones failing.
    expect(pending.every((d) => d.attempts >= 1)).toBe(true);
    // Unpaused, each event would have been tried at about 0, 0.2, 0.6, 1.4 and 2.4 s (75
    // requests); paused after 3 failures in a row, the endpoint gets 3 per backoff step.
    expect(down.received.length).toBeLessThan(2.5 * EVENTS);
    const endpoint = (await session.get(`/webhooks/${id}`)).body.data;
    expect(endpoint.failing_since).not.toBeNull();
  });

  it('goes on with the next events while a receiver refuses one', async () => {
    let refused: string | undefined;
    const hooks = await receiver((webhook) => {
      refused ??= webhook.body.id;
      return webhook.body.id === refused ? 400 : 200;
    });
    const { session } = await accountWithEndpoint(hooks.url);
    for (let i = 0; i < 5; i++) await keyEvent(session);
    await hooks.until((got) => got.filter((w) => w.answered === 200).length >= 4);
    const taken = hooks.accepted().map((w) => w.body.sequence);
    expect(new Set(taken).size).toBe(4);
    expect(hooks.received.filter((w) => w.body.id === refused).length).toBeGreaterThanOrEqual(1);
  });

  it('delivers every event at least once when the worker is killed mid-delivery', async () => {
    let stall = true;
    const hooks = await receiver(() => (stall ? 'stall' : 200));
    const { session, secret } = await accountWithEndpoint(hooks.url);
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) keys.push(await keyEvent(session));

    await hooks.until((got) => got.length >= 1);
    const [worker] = stack.workers;
    worker.process.kill('SIGKILL');
    await waitForExit(worker);
    stack.workers.splice(0, 1);
    stall = false;
    await stack.startWorker();

    await hooks.until((got) => {
      const taken = new Set(got.filter((w) => w.answered === 200).map((w) => w.body.data.id));
      return keys.every((key) => taken.has(key));
    });
    for (const webhook of hooks.accepted()) expect(verified(secret, webhook)).toBe(true);
    // The delivery in flight at the kill came again with the same id.
    const first = hooks.received[0].headers['webhook-id'];
    expect(hooks.accepted().some((w) => w.headers['webhook-id'] === first)).toBe(true);
  });

  it('replays exactly the events from a sequence number, and one delivery', async () => {
    const hooks = await receiver();
    const { session, id } = await accountWithEndpoint(hooks.url);
    for (let i = 0; i < 4; i++) await keyEvent(session);
    await hooks.until((got) => got.length >= 4);
    const sequences = hooks.received.map((w) => w.body.sequence!);
    const from = sequences[1];

    const replay = await session.post(`/webhooks/${id}/replay`, { from_sequence: from });
    expect(replay.status).toBe(200);
    expect(replay.body.data).toEqual({
      deliveries: 3,
      from_sequence: from,
      to_sequence: sequences[3],
      truncated: false,
    });
    await hooks.until((got) => got.length >= 7);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const replayed = hooks.received.slice(4);
    expect(replayed.map((w) => w.body.sequence)).toEqual(sequences.slice(1));
    expect(replayed.map((w) => w.rawBody)).toEqual(
      hooks.received.slice(1, 4).map((w) => w.rawBody),
    );

    const [oldest] = (await deliveriesOf(session, id, '?limit=100')).slice(-1);
    const one = await session.post(`/webhooks/${id}/replay`, { delivery_id: oldest.id });
    expect(one.body.data).toMatchObject({ deliveries: 1, from_sequence: sequences[0] });
    await hooks.until((got) => got.length >= 8);
    expect(hooks.received[7].body.id).toBe(hooks.received[0].body.id);
    expect(hooks.received).toHaveLength(8);
  });

  it('sends a ping through the pipeline', async () => {
    const hooks = await receiver();
    const { session, id, secret } = await accountWithEndpoint(hooks.url);
    const ping = await session.post(`/webhooks/${id}/ping`);
    expect(ping.status).toBe(200);
    await hooks.until((got) => got.length >= 1);
    expect(hooks.received[0].body).toMatchObject({
      id: ping.body.data.delivery_id,
      type: 'ping',
      sequence: null,
      data: { endpoint_id: id },
    });
    expect(verified(secret, hooks.received[0])).toBe(true);
  });

  it('signs with both secrets during a rotation grace, with the new one only after', async () => {
    const hooks = await receiver();
    const { session, id, secret: oldSecret } = await accountWithEndpoint(hooks.url);
    const rotated = await session.post(`/webhooks/${id}/rotate-secret`, {
      grace_period_seconds: 3,
    });
    const newSecret = rotated.body.data.secret;
    await keyEvent(session);
    await hooks.until((got) => got.length >= 1);

    const during = hooks.received[0];
    const signatures = String(during.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    const withOnly = (signature: string) => ({ ...during.headers, 'webhook-signature': signature });
    expect(verifyWebhookSignature(newSecret, withOnly(signatures[0]), during.rawBody)).toBe(true);
    expect(verifyWebhookSignature(oldSecret, withOnly(signatures[1]), during.rawBody)).toBe(true);
    expect(() =>
      verifyWebhookSignature(oldSecret, withOnly(signatures[0]), during.rawBody),
    ).toThrow();
    expect(() =>
      verifyWebhookSignature(newSecret, withOnly(signatures[1]), during.rawBody),
    ).toThrow();

    await new Promise((resolve) => setTimeout(resolve, 3_200));
    await keyEvent(session);
    await hooks.until((got) => got.length >= 2);
    const after = hooks.received[1];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verified(newSecret, after)).toBe(true);
    expect(() => verified(oldSecret, after)).toThrow('No matching signature');
  });

  it('fails a delivery after the retry window and disables an endpoint failing past the disable window', async () => {
    await stack.stopWorkers();
    // The disable window is well past the retry window, so that some delivery has run out of
    // retries before the endpoint is disabled, however loaded the machine is.
    await stack.startWorker({ WEBHOOK_RETRY_WINDOW_MS: '1000', WEBHOOK_DISABLE_AFTER_MS: '5000' });
    const failing = await receiver(() => 503);
    const told = await receiver();
    const { session, id } = await accountWithEndpoint(failing.url);
    await session.post('/webhooks', {
      url: told.url,
      event_types: ['webhook_endpoint.disabled'],
    });

    // Events keep coming, each failing, until the endpoint has failed for 5 s.
    let disabled: any;
    await waitUntil(
      async () => {
        await keyEvent(session);
        disabled = (await session.get(`/webhooks/${id}`)).body.data;
        return disabled.enabled === false;
      },
      30_000,
      { intervalMs: 200 },
    );
    expect(disabled.disabled_reason).toMatch(/^No successful delivery since /);
    expect(Date.now() - Date.parse(disabled.failing_since)).toBeGreaterThanOrEqual(5_000);

    await told.until((got) => got.length >= 1);
    expect(told.received[0].body).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { endpoint_id: id, url: failing.url, reason: disabled.disabled_reason },
    });
    const failed = await deliveriesOf(session, id, '?status=failed&limit=100');
    expect(failed.length).toBeGreaterThan(0);
    for (const delivery of failed) {
      expect(delivery.next_attempt_at).toBeNull();
      const first = Date.parse(delivery.first_attempt_at);
      expect(Date.parse(delivery.last_attempt_at) - first).toBeGreaterThanOrEqual(1_000);
    }

    // A disabled endpoint is sent nothing more.
    const sent = failing.received.length;
    await keyEvent(session);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(failing.received.length).toBe(sent);
  });
});
