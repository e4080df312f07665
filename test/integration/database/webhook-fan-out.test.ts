import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import {
  AccountEventRepository,
  createDataSource,
  PgNotifications,
  WebhookDeliveryRepository,
  WebhookEndpointRepository,
} from '@app/database';
import { scopeOf } from '@test/support/work-scope';
import { insertAccountRow } from '@test/support/account-rows';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(120_000);

/**
 * The fan-out: an account event makes one pending delivery per enabled endpoint of its account
 * that takes its type, in the event's own transaction, and notifies the endpoint; the lease lets
 * one pump at a time take an endpoint.
 */
describe('webhook fan-out', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let endpoints: WebhookEndpointRepository;
  let deliveries: WebhookDeliveryRepository;
  let events: AccountEventRepository;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    endpoints = new WebhookEndpointRepository(dataSource);
    deliveries = new WebhookDeliveryRepository(dataSource);
    events = new AccountEventRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  const newAccount = () => insertAccountRow(dataSource, 'hooks');

  async function newEndpoint(accountId: string, eventTypes: string[], enabled = true) {
    const endpoint = await endpoints.insertWithinCap(
      { id: randomUUID(), accountId, url: 'http://127.0.0.1:9/x', description: '', eventTypes },
      enabled,
      { ciphertext: Buffer.from('sealed'), keyId: 'k' },
      10,
      scopeOf(dataSource.manager),
    );
    return endpoint!;
  }

  const pendingOf = (endpointId: string) =>
    dataSource.query(
      `SELECT event_type, event_seq::int AS seq FROM webhook_deliveries
       WHERE endpoint_id = $1 ORDER BY event_seq`,
      [endpointId],
    );

  /** Runs `body` while listening to the deliveries' wake-ups; `heard` collects them. */
  async function listeningToWakeUps(body: (heard: (string | null)[]) => Promise<void>) {
    const notifications = new PgNotifications({
      databaseUrl: services.databaseUrl,
      databaseConnectTimeoutMs: 5_000,
    } as AppConfig);
    try {
      const heard: (string | null)[] = [];
      await notifications.listen('webhook_deliveries', (payload) => heard.push(payload));
      await body(heard);
    } finally {
      await notifications.onApplicationShutdown();
    }
  }

  /** Until `heard` holds `count` wake-ups, or 5 s. */
  async function untilHeard(heard: unknown[], count: number): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (heard.length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('makes a delivery per enabled endpoint taking the type, in the event transaction', async () => {
    const accountId = await newAccount();
    const all = await newEndpoint(accountId, []);
    const disabledOnly = await newEndpoint(accountId, ['webhook_endpoint.disabled']);
    const off = await newEndpoint(accountId, [], false);
    const elsewhere = await newEndpoint(await newAccount(), []);

    await events.append(accountId, 'webhook_endpoint.disabled', { n: 1 });
    await dataSource
      .transaction(async (manager) => {
        await events.append(accountId, 'webhook_endpoint.disabled', { n: 2 }, scopeOf(manager));
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    await dataSource.query(
      `INSERT INTO api_keys (id, account_id, name, key_prefix, key_hash) VALUES ($1, $2, 'k', 'ais_', $3)`,
      [randomUUID(), accountId, randomUUID()],
    );

    expect(await pendingOf(all.id)).toEqual([
      { event_type: 'webhook_endpoint.disabled', seq: 1 },
      { event_type: 'api_key.created', seq: 2 },
    ]);
    expect(await pendingOf(disabledOnly.id)).toEqual([
      { event_type: 'webhook_endpoint.disabled', seq: 1 },
    ]);
    expect(await pendingOf(off.id)).toEqual([]);
    expect(await pendingOf(elsewhere.id)).toEqual([]);
    const [due] = await deliveries.due(all.id, 10);
    expect(due.event).toMatchObject({
      seq: '1',
      type: 'webhook_endpoint.disabled',
      data: { n: 1 },
    });
  });

  it("names each delivery's event by its account and number, which must be there", async () => {
    const accountId = await newAccount();
    const endpoint = await newEndpoint(accountId, []);
    await events.append(accountId, 'webhook_endpoint.disabled', { n: 1 });
    const [event] = await dataSource.query<{ id: string; seq: string }[]>(
      `SELECT id, seq::text FROM account_events WHERE account_id = $1`,
      [accountId],
    );
    const deliver = (eventId: string, eventSeq: string | null) =>
      dataSource.query(
        `INSERT INTO webhook_deliveries (endpoint_id, account_id, event_id, event_seq, event_type)
         VALUES ($1, $2, $3, $4, 'webhook_endpoint.disabled')`,
        [endpoint.id, accountId, eventId, eventSeq],
      );

    await expect(deliver(event.id, '2')).rejects.toThrow(/webhook_deliveries_event/);
    await expect(deliver(event.id, null)).rejects.toThrow(/webhook_deliveries_event_seq/);
    await deliver(event.id, event.seq);
    expect(await pendingOf(endpoint.id)).toEqual([
      { event_type: 'webhook_endpoint.disabled', seq: 1 },
      { event_type: 'webhook_endpoint.disabled', seq: 1 },
    ]);
  });

  it('replays the events from a time on, oldest first, up to the limit', async () => {
    const accountId = await newAccount();
    const endpoint = await newEndpoint(accountId, ['webhook_endpoint.disabled']);
    await events.append(accountId, 'webhook_endpoint.disabled', { n: 1 });
    // A replay's time is in milliseconds: the events are kept apart by more than one.
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    await pause();
    const [{ since }] = await dataSource.query<{ since: Date }[]>(
      `SELECT clock_timestamp() AS since`,
    );
    await pause();
    for (const n of [2, 3, 4]) await events.append(accountId, 'webhook_endpoint.disabled', { n });
    await events.append(await newAccount(), 'webhook_endpoint.disabled', { n: 5 });
    await dataSource.query(`DELETE FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id]);

    const replayed = await deliveries.replay(endpoint, { since }, 2);

    expect(replayed).toEqual({ count: 2, firstSeq: '2', lastSeq: '3' });
    expect(await pendingOf(endpoint.id)).toEqual([
      { event_type: 'webhook_endpoint.disabled', seq: 2 },
      { event_type: 'webhook_endpoint.disabled', seq: 3 },
    ]);
  });

  it('skips an endpoint deleted while the event is written, without failing the event', async () => {
    const accountId = await newAccount();
    const doomed = await newEndpoint(accountId, []);
    const kept = await newEndpoint(accountId, []);
    let appended: Promise<void> | undefined;
    await dataSource.transaction(async (manager) => {
      await endpoints.delete(accountId, doomed.id, scopeOf(manager));
      // Written while the delete is uncommitted: it waits for it, then leaves the endpoint out.
      appended = events.append(accountId, 'webhook_endpoint.disabled', {});
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    await appended;
    expect(await pendingOf(kept.id)).toEqual([{ event_type: 'webhook_endpoint.disabled', seq: 1 }]);
    expect(await pendingOf(doomed.id)).toEqual([]);
  });

  it('notifies the endpoint once its deliveries commit', () =>
    listeningToWakeUps(async (heard) => {
      const accountId = await newAccount();
      const endpoint = await newEndpoint(accountId, []);
      await dataSource.transaction(async (manager) => {
        await events.append(accountId, 'webhook_endpoint.disabled', {}, scopeOf(manager));
        await events.append(accountId, 'webhook_endpoint.disabled', {}, scopeOf(manager));
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(heard).toEqual([]);
      });
      await deliveries.insertPing(endpoint, { id: 'p' }, randomUUID());
      await untilHeard(heard, 2);
      // One notification per transaction and endpoint.
      expect(heard).toEqual([endpoint.id, endpoint.id]);
    }));

  it("makes the deliveries of a many-row statement's events in their order, waking the endpoint once", () =>
    listeningToWakeUps(async (heard) => {
      const accountId = await newAccount();
      const endpoint = await newEndpoint(accountId, ['webhook_endpoint.disabled']);
      // Events inserted by one statement, numbered by the row trigger: one fan-out for all three.
      await dataSource.query(
        `INSERT INTO account_events (account_id, type, data)
         SELECT $1, t, '{}' FROM unnest($2::text[]) AS t`,
        [accountId, ['webhook_endpoint.disabled', 'api_key.created', 'webhook_endpoint.disabled']],
      );
      expect(await pendingOf(endpoint.id)).toEqual([
        { event_type: 'webhook_endpoint.disabled', seq: 1 },
        { event_type: 'webhook_endpoint.disabled', seq: 3 },
      ]);
      await untilHeard(heard, 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual([endpoint.id]);
    }));

  it('leases an endpoint to one pump at a time, until the lease lapses or is released', async () => {
    const endpoint = await newEndpoint(await newAccount(), []);
    expect(await endpoints.takeLease(endpoint.id, 'a', 300)).not.toBeNull();
    expect(await endpoints.takeLease(endpoint.id, 'b', 300)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await endpoints.takeLease(endpoint.id, 'b', 60_000)).not.toBeNull();
    await endpoints.releaseLease(endpoint.id, 'a'); // not a's any more: no effect
    expect(await endpoints.takeLease(endpoint.id, 'c', 60_000)).toBeNull();
    await endpoints.releaseLease(endpoint.id, 'b');
    await endpoints.pause(endpoint.id, new Date(Date.now() + 60_000));
    expect(await endpoints.takeLease(endpoint.id, 'c', 60_000)).toBeNull();
  });
});
