import { queryDatabase } from '@test/support/chain-reads';
import { HttpClient } from '@test/support/http-client';
import { sample } from '@test/support/prometheus-text';
import { freePort } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

const IMAGE = 'https://example.com/fair.png';
const ASYNC = { prefer: 'respond-async' };

/** Two accounts on one network's queue, with a worker of few slots so that a backlog forms. */
describe('fair scheduling between accounts', () => {
  let stack: ServiceStack;

  beforeAll(async () => {
    stack = await startServiceStack({
      // One shard: the two accounts' wallets meet on one queue, whatever their hashes.
      env: { RATE_LIMIT_REQUESTS: '1000000', QUEUE_SHARDS: '1' },
      workerEnv: { WORKER_CONCURRENCY: '4' },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const account = async () => {
    const { api, account } = await newAccountClient(stack.http);
    const created = await api.post('/nfts', {
      network: 'base',
      name: 'Fair',
      description: 'fair share',
      images: [IMAGE],
    });
    expect(created.status).toBe(200);
    const id = (account as unknown as { id: string }).id;
    return { api, id, collection: created.body.data.mint_address as string };
  };

  const flood = async (api: HttpClient, collection: string, count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 20) {
      const batch = Array.from({ length: Math.min(20, count - i) }, (_, j) =>
        api.post(`/nfts/${collection}/mint`, { name: `A ${i + j}`, images: [IMAGE] }, ASYNC),
      );
      for (const response of await Promise.all(batch)) {
        expect(response.status).toBe(202);
        ids.push(response.body.data.operation_id);
      }
    }
    return ids;
  };

  const unsettled = async (accountId: string) => {
    const [row] = await queryDatabase<{ n: string }>(
      stack.env.DATABASE_URL,
      `SELECT count(*) AS n FROM operations
        WHERE account_id = $1 AND status IN ('queued', 'signed', 'submitted')`,
      [accountId],
    );
    return Number(row.n);
  };

  /**
   * The most of the account's transactions out at once (sent, not yet settled), from its event
   * feed, which is in commit order: what the scrapes above could miss between two samples.
   */
  const mostSentAtOnce = async (accountId: string) => {
    const events = await queryDatabase<{ type: string; operation_id: string }>(
      stack.env.DATABASE_URL,
      `SELECT type, operation_id FROM account_events WHERE account_id = $1 ORDER BY seq`,
      [accountId],
    );
    const out = new Set<string>();
    let most = 0;
    for (const { type, operation_id: id } of events) {
      if (type === 'operation.submitted') out.add(id);
      if (type === 'operation.confirmed' || type === 'operation.failed') out.delete(id);
      most = Math.max(most, out.size);
    }
    return most;
  };

  it("confirms B's synchronous mints while A's backlog is still pending", async () => {
    const [a, b] = await Promise.all([account(), account()]);
    const backlog = 200;
    await flood(a.api, a.collection, backlog);
    for (let i = 0; i < 3; i++) {
      const minted = await b.api.post(`/nfts/${b.collection}/mint`, {
        name: `B ${i}`,
        images: [IMAGE],
      });
      expect(minted.status).toBe(200);
      expect(minted.body.data.status).toBe('confirmed');
    }
    // In one FIFO, B's mints would have waited for all of A's 200.
    expect(await unsettled(a.id)).toBeGreaterThan(backlog / 2);
  });

  it("runs an account's first pending operations in the database pool's first lane", async () => {
    const metricsPort = await freePort();
    await stack.stopWorkers();
    await stack.startWorker({ WORKER_CONCURRENCY: '16', WORKER_METRICS_PORT: String(metricsPort) });
    const metrics = new HttpClient(`http://127.0.0.1:${metricsPort}`);
    const poolWaits = async (lane: string) =>
      sample(String((await metrics.get('/metrics')).body), 'ais_database_pool_wait_seconds_count', {
        lane,
      });
    const [a, b] = await Promise.all([account(), account()]);
    await flood(a.api, a.collection, 40);
    while ((await unsettled(a.id)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    // A's backlog of 40: all but its first in the fair lane.
    expect(await poolWaits('fair')).toBeGreaterThan(0);

    const firstBefore = await poolWaits('first');
    const minted = await b.api.post(`/nfts/${b.collection}/mint`, { name: 'B', images: [IMAGE] });
    expect(minted.body.data.status).toBe('confirmed');
    // B has nothing else pending: its mint's statements (its read, its signing, its settling)
    // go first.
    expect((await poolWaits('first')) - firstBefore).toBeGreaterThanOrEqual(3);
  });

  it("holds an account to its in-flight cap across the network's workers", async () => {
    const metricsPort = await freePort();
    await stack.stopWorkers();
    await stack.startWorker({
      WORKER_CONCURRENCY: '16',
      ACCOUNT_MAX_IN_FLIGHT: '2',
      WORKER_METRICS_PORT: String(metricsPort),
    });
    const metrics = new HttpClient(`http://127.0.0.1:${metricsPort}`);
    const a = await account();
    await flood(a.api, a.collection, 40);

    let maxInFlight = 0;
    let maxPending = 0;
    while ((await unsettled(a.id)) > 0) {
      const text = String((await metrics.get('/metrics')).body);
      maxInFlight = Math.max(
        maxInFlight,
        sample(text, 'ais_account_in_flight_operations', { network: 'base', account: a.id }),
      );
      maxPending = Math.max(
        maxPending,
        sample(text, 'ais_account_pending_operations', { network: 'base', account: a.id }),
      );
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // 16 slots, but never more than 2 of them for one account; all 40 went through.
    expect(maxInFlight).toBeGreaterThan(0);
    expect(maxInFlight).toBeLessThanOrEqual(2);
    expect(maxPending).toBeGreaterThan(2);
    expect(await mostSentAtOnce(a.id)).toBeLessThanOrEqual(2);
    const [row] = await queryDatabase<{ n: string }>(
      stack.env.DATABASE_URL,
      `SELECT count(*) AS n FROM operations WHERE account_id = $1 AND status = 'confirmed'`,
      [a.id],
    );
    expect(Number(row.n)).toBe(41); // the collection and its 40 items
  });
});
