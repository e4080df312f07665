import { registerSession } from '@test/support/accounts';
import { queryDatabase } from '@test/support/chain-reads';
import { expectError, UUID, ISO_MS, type Data } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { logLines } from '@test/support/log-lines';
import { startOwnRedis, type OwnRedis } from '@test/support/own-redis';
import { freePort, startServiceProcess } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { SseClient } from '@test/support/sse-client';
import { waitUntil } from '@app/localnet/net.util';

jest.setTimeout(180_000);

interface EventView {
  id: string;
  sequence: number;
  type: string;
  created_at: string;
  data: Data;
}

const STREAMS_PER_ACCOUNT = 3;

/**
 * The account's event feed over HTTP, with the API and the worker as their own processes and a
 * Redis of the suite's own (flushed here): GET /events pages every event in order, each account
 * its own; GET /events/stream follows them live and resumes from Last-Event-ID.
 */
describe('the event feed', () => {
  let redis: OwnRedis;
  let stack: ServiceStack;
  let api: HttpClient;
  /** Headers carrying the account's API key, for the raw stream client. */
  let withKey: Record<string, string>;
  let mint: string;

  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startServiceStack({
      env: {
        REDIS_URL: redis.url,
        EVENT_STREAM_HEARTBEAT_MS: '300',
        EVENT_STREAMS_PER_ACCOUNT: String(STREAMS_PER_ACCOUNT),
        // Streams here are woken by notifications: a slow fallback poll shows it is not the poll.
        EVENT_STREAM_POLL_MS: '60000',
      },
    });
    const user = await newAccountClient(stack.http);
    api = user.api;
    withKey = { 'api-key': user.key };
    const token = await api.post('/tokens', {
      network: 'base',
      name: 'Feed',
      symbol: 'FEED',
      amount: 1000,
    });
    expect(token.status).toBe(200);
    mint = token.body.data.mint_address;
  });

  afterAll(async () => {
    await stack?.stop();
    await redis?.stop();
  });

  /** The whole feed, `limit` events a page, checking each page's envelope. */
  async function allEvents(client: HttpClient, limit = 100, after = 0): Promise<EventView[]> {
    const events: EventView[] = [];
    for (;;) {
      const page = await client.get(`/events?after=${after}&limit=${limit}`);
      expect({ status: page.status, success: page.body.success }).toEqual({
        status: 200,
        success: true,
      });
      const data = page.body.data as { events: EventView[]; next_after: number; has_more: boolean };
      expect(data.events.length).toBeLessThanOrEqual(limit);
      expect(data.next_after).toBe(data.events.at(-1)?.sequence ?? after);
      events.push(...data.events);
      if (!data.has_more) return events;
      expect(data.events).toHaveLength(limit);
      after = data.next_after;
    }
  }

  async function mintOne(amount: number): Promise<string> {
    const minted = await api.post(`/tokens/${mint}/mint`, { amount });
    expect(minted.status).toBe(200);
    return minted.body.data.operation_id as string;
  }

  /** The events of one operation, in feed order: [type, status of its data]. */
  function lifecycle(events: EventView[], operationId: string): string[][] {
    return events
      .filter((event) => event.data.operation_id === operationId)
      .map((event) => [event.type, event.data.status]);
  }

  it('lists every event in order, gap-free, with the operation as GET /operations showed it', async () => {
    const second = await mintOne(2);
    const third = await mintOne(3);
    // More than the managed wallet holds: the chain refuses it, the operation fails.
    const burn = await api.post(`/tokens/${mint}/burn`, { amount: 1_000_000 });
    expect(burn.status).toBe(409);

    const events = await allEvents(api);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index + 1));
    expect(events[0]).toMatchObject({ type: 'api_key.created', data: { name: 'test' } });
    for (const event of events) {
      expect(event).toEqual({
        id: expect.stringMatching(UUID),
        sequence: expect.any(Number),
        type: expect.any(String),
        created_at: expect.stringMatching(ISO_MS),
        data: expect.any(Object),
      });
    }
    const operationIds = [
      ...new Set(events.map((event) => event.data.operation_id).filter(Boolean)),
    ] as string[];
    expect(operationIds).toHaveLength(4);
    expect(operationIds.slice(1, 3)).toEqual([second, third]);
    for (const id of operationIds.slice(0, 3)) {
      expect(lifecycle(events, id)).toEqual([
        ['operation.queued', 'queued'],
        ['operation.submitted', 'submitted'],
        ['operation.confirmed', 'confirmed'],
      ]);
      const confirmed = events.find(
        (event) => event.type === 'operation.confirmed' && event.data.operation_id === id,
      )!;
      const read = await api.get(`/operations/${id}`);
      expect(confirmed.data).toEqual(read.body.data);
    }
    const failed = operationIds[3];
    expect(lifecycle(events, failed)).toEqual([
      ['operation.queued', 'queued'],
      ['operation.failed', 'failed'],
    ]);
    const failure = events.at(-1)!;
    expect(failure.data).toEqual((await api.get(`/operations/${failed}`)).body.data);
    expect(failure.data.error).toMatchObject({ error: 'Conflict' });

    // Small pages, and from the middle on, give the same events.
    expect(await allEvents(api, 2)).toEqual(events);
    expect(await allEvents(api, 1000, 5)).toEqual(events.slice(5));
    const past = await api.get(`/events?after=${events.length + 10}`);
    expect(past.body.data).toEqual({ events: [], next_after: events.length + 10, has_more: false });
    const defaults = await api.get('/events');
    expect(defaults.body.data).toEqual({
      events: events.slice(0, 100),
      next_after: events.at(-1)!.sequence,
      has_more: false,
    });
  });

  it("shows an account its own events only, by API key or session, never another's", async () => {
    const { session } = await registerSession(stack.http.baseUrl, 'events-other');
    const key = await session.post('/account/api-keys', { name: 'other' });
    const own = await allEvents(session);
    expect(own.map((event) => [event.sequence, event.type])).toEqual([[1, 'api_key.created']]);
    expect(own[0].data).toMatchObject({ id: key.body.data.id, prefix: key.body.data.prefix });
    const byKey = stack.http.with({ 'api-key': key.body.data.key });
    expect(await allEvents(byKey)).toEqual(own);
    const stream = await SseClient.open(`${stack.http.baseUrl}/events/stream?after=0`, {
      cookie: session.sessionCookie!,
    });
    const [streamed] = await stream.waitForEvents(1);
    expect(JSON.parse(streamed.data)).toEqual(own[0]);
    stream.close();
    // The first account's own list is untouched by the second's events.
    const first = await allEvents(api);
    expect(first.some((event) => event.data.id === key.body.data.id)).toBe(false);
    expect(first.length).toBeGreaterThan(1);
  });

  it('refuses a bad after or limit (400) and callers without credentials (401)', async () => {
    for (const query of [
      'after=-1',
      'after=1.5',
      'after=abc',
      'after=1e3',
      'after=',
      'after=9007199254740992',
      'after=1&after=2',
      'limit=0',
      'limit=1001',
      'limit=ten',
      'cursor=5',
    ]) {
      const response = await api.get(`/events?${query}`);
      expectError(response, 400, 'Bad request');
    }
    const after = await api.get('/events?after=-1');
    expect(after.body.message).toBe(
      'Invalid request body. after must be an event sequence number: an integer from 0 to 9007199254740991.',
    );
    expect((await api.get('/events?limit=1001')).body.message).toMatch(
      /limit must not be greater than 1000/,
    );

    expectError(await stack.http.get('/events'), 401, 'Unauthorized');
    expectError(await stack.http.get('/events', { 'api-key': 'ais_nope' }), 401, 'Unauthorized');
    const stranger = await SseClient.open(`${stack.http.baseUrl}/events/stream`);
    expect(stranger.status).toBe(401);
    expect(stranger.body).toMatchObject({ success: false, error: 'Unauthorized' });
    const badId = await SseClient.open(`${stack.http.baseUrl}/events/stream`, {
      ...withKey,
      'last-event-id': 'seven',
    });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toMatch(/Last-Event-ID must be an event sequence number/);
  });

  it('documents both routes in the OpenAPI document', async () => {
    const { paths } = (await stack.http.get('/docs/json')).body;
    const page = paths['/events'].get;
    expect(page.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['after', 'limit']);
    expect(Object.keys(page.responses)).toEqual(expect.arrayContaining(['200', '400', '401']));
    const stream = paths['/events/stream'].get;
    expect(stream.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'Last-Event-ID',
      'after',
    ]);
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
    expect(Object.keys(stream.responses)).toEqual(expect.arrayContaining(['400', '401', '429']));
  });

  it('still lists every event in order after Redis is flushed, new ones included', async () => {
    const before = await allEvents(api);
    await redis.flushAll();
    const afterFlush = await mintOne(4);
    const events = await allEvents(api);
    expect(events.slice(0, before.length)).toEqual(before);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index + 1));
    expect(lifecycle(events.slice(before.length), afterFlush)).toEqual([
      ['operation.queued', 'queued'],
      ['operation.submitted', 'submitted'],
      ['operation.confirmed', 'confirmed'],
    ]);
  });

  it('streams new events live, and resumes from Last-Event-ID with none missed or repeated', async () => {
    const url = `${stack.http.baseUrl}/events/stream`;
    const live = await SseClient.open(url, withKey);
    expect(live.status).toBe(200);
    expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(live.headers['x-request-id']).toMatch(/./);
    await live.waitFor(() => live.retry !== undefined);
    const start = (await allEvents(api)).length;

    // Only events from now on: the history is not replayed.
    const first = await mintOne(5);
    const firstEvents = await live.waitForEvents(3);
    expect(firstEvents.map((event) => [Number(event.id), event.event])).toEqual([
      [start + 1, 'operation.queued'],
      [start + 2, 'operation.submitted'],
      [start + 3, 'operation.confirmed'],
    ]);
    const confirmed = JSON.parse(firstEvents[2].data) as EventView;
    expect(confirmed).toMatchObject({ sequence: start + 3, type: 'operation.confirmed' });
    expect(confirmed.data).toEqual((await api.get(`/operations/${first}`)).body.data);
    // Idle, it beats.
    await live.waitFor(() => live.comments.includes('heartbeat'), 5_000, 'a heartbeat');
    live.close();

    // While away: one more operation.
    const missed = await mintOne(6);
    const resumed = await SseClient.open(url, {
      ...withKey,
      'last-event-id': String(start + 3),
    });
    expect(resumed.status).toBe(200);
    const caughtUp = await resumed.waitForEvents(3);
    expect(caughtUp.map((event) => Number(event.id))).toEqual([start + 4, start + 5, start + 6]);
    expect(caughtUp.map((event) => JSON.parse(event.data).data.operation_id)).toEqual([
      missed,
      missed,
      missed,
    ]);
    // Then live again.
    const next = await mintOne(7);
    const all = await resumed.waitForEvents(6);
    expect(all.map((event) => Number(event.id))).toEqual(
      Array.from({ length: 6 }, (_, index) => start + 4 + index),
    );
    expect(JSON.parse(all[5].data)).toMatchObject({
      type: 'operation.confirmed',
      data: { operation_id: next, status: 'confirmed' },
    });
    // Nothing more than the feed holds, nothing twice.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const feed = await allEvents(api, 1000, start + 3);
    expect(resumed.events.map((event) => JSON.parse(event.data))).toEqual(feed);
    resumed.close();

    // ?after= starts there when no Last-Event-ID is sent.
    const fromQuery = await SseClient.open(`${url}?after=${start + 7}`, withKey);
    const fromQueryEvents = await fromQuery.waitForEvents(2);
    expect(fromQueryEvents.map((event) => Number(event.id))).toEqual([start + 8, start + 9]);
    fromQuery.close();

    // The request log line of a stream the client hung up on.
    await waitUntil(
      () =>
        logLines(stack.api).some(
          (line) =>
            line.msg === 'request completed' &&
            line.req?.route === '/events/stream' &&
            line.aborted === true &&
            line.res?.statusCode === 200,
        ),
      5_000,
      { what: 'the aborted stream to be logged' },
    );
  });

  it('re-reads once its lost LISTEN connection is made again: nothing committed meanwhile is missed', async () => {
    const live = await SseClient.open(`${stack.http.baseUrl}/events/stream`, withKey);
    await live.waitFor(() => live.retry !== undefined);
    const [{ account_id: accountId }] = await queryDatabase<{ account_id: string }>(
      stack.services.databaseUrl,
      'SELECT account_id FROM operations WHERE kind = $1 LIMIT 1',
      ['token.create'],
    );
    const cut = await queryDatabase(
      stack.services.databaseUrl,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
    );
    expect(cut.length).toBeGreaterThanOrEqual(1);
    // Its notification is sent while nobody listens, and nothing notifies after it: only the
    // re-read after listening again (not the 60 s poll) can bring it.
    await queryDatabase(
      stack.services.databaseUrl,
      `INSERT INTO account_events (account_id, type, data) VALUES ($1, 'webhook_endpoint.disabled', '{"by":"test"}')`,
      [accountId],
    );
    const [event] = await live.waitForEvents(1, 10_000);
    expect(JSON.parse(event.data)).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { by: 'test' },
    });
    live.close();
  });

  it('holds at most EVENT_STREAMS_PER_ACCOUNT streams per account and instance (429 beyond)', async () => {
    const url = `${stack.http.baseUrl}/events/stream`;
    const open = await Promise.all(
      Array.from({ length: STREAMS_PER_ACCOUNT }, () => SseClient.open(url, withKey)),
    );
    expect(open.map((stream) => stream.status)).toEqual(Array(STREAMS_PER_ACCOUNT).fill(200));
    const refused = await SseClient.open(url, withKey);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body).toMatchObject({
      success: false,
      error: 'Too many requests',
      message: expect.stringMatching(/already has 3 event streams open/),
    });
    // Another account is not counted with this one.
    const other = await newAccountClient(stack.http);
    const theirs = await SseClient.open(url, { 'api-key': other.key });
    expect(theirs.status).toBe(200);
    theirs.close();

    // A HEAD is answered at once, without a body, and holds no stream.
    for (let i = 0; i < STREAMS_PER_ACCOUNT; i++) {
      const head = await fetch(url, { method: 'HEAD', headers: withKey });
      expect(head.status).toBe(429);
    }
    const other2 = await newAccountClient(stack.http);
    for (let i = 0; i <= STREAMS_PER_ACCOUNT; i++) {
      const head = await fetch(url, { method: 'HEAD', headers: { 'api-key': other2.key } });
      expect(head.status).toBe(200);
    }
    let afterHeads: SseClient | undefined;
    await waitUntil(async () => {
      afterHeads = await SseClient.open(url, { 'api-key': other2.key });
      return afterHeads.status === 200;
    }, 5_000);
    afterHeads!.close();

    open[0].close();
    let again: SseClient | undefined;
    await waitUntil(async () => {
      again = await SseClient.open(url, withKey);
      return again.status === 200;
    }, 5_000);
    for (const stream of [...open, again!]) stream.close();
  });

  it('ends its streams on SIGTERM, so the API shuts down without waiting for them', async () => {
    const port = await freePort();
    const instance = await startServiceProcess(
      'api',
      { ...stack.env, API_PORT: String(port), SHUTDOWN_DRAIN_MS: '300' },
      /API listening/,
    );
    const stream = await SseClient.open(`http://127.0.0.1:${port}/events/stream`, withKey);
    expect(stream.status).toBe(200);
    await stream.waitFor(() => stream.retry !== undefined);
    const stopping = Date.now();
    await instance.stop('SIGTERM');
    const tookMs = Date.now() - stopping;
    expect(instance.process.signalCode).toBe('SIGTERM');
    // Drain (300 ms) and closing: nowhere near the 10 s after which stop() would SIGKILL.
    expect(tookMs).toBeLessThan(5_000);
    await stream.waitFor(() => stream.ended, 1_000, 'the end of the stream');
    expect(
      logLines(instance).some(
        (line) =>
          line.msg === 'request completed' &&
          line.req?.route === '/events/stream' &&
          line.res?.statusCode === 200 &&
          line.aborted === undefined,
      ),
    ).toBe(true);
  });
});
