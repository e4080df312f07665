import { randomUUID } from 'node:crypto';
import { metricsRegistry } from '@app/common';
import { startApiWithAccount } from '@test/support/api-app';
import type { HttpClient } from '@test/support/http-client';

jest.setTimeout(60_000);

/** Pool waits so far in a lane of the pool (this process's registry: the API runs in it). */
async function poolWaits(lane: 'first' | 'fair'): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('ais_database_pool_wait_seconds')!.get();
  // A histogram's values are its buckets, sum and count, each named.
  const values = metric.values as {
    metricName?: string;
    labels: { lane?: string };
    value: number;
  }[];
  return values
    .filter(
      (value) =>
        value.metricName === 'ais_database_pool_wait_seconds_count' && value.labels.lane === lane,
    )
    .reduce((sum, value) => sum + value.value, 0);
}

/** An account's only request in flight in an API process takes the pool's first lane. */
describe("the API's lanes", () => {
  let api: HttpClient;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ api, stop } = await startApiWithAccount());
  });

  afterAll(async () => {
    await stop?.();
  });

  // An operation the account does not have: read from Postgres, answered 404.
  const readOperation = async () => {
    const response = await api.get(`/operations/${randomUUID()}`);
    expect(response.status).toBe(404);
  };

  it('runs the queries of an account’s only request first', async () => {
    const first = await poolWaits('first');
    await readOperation();
    // The read; the guard's look at the key comes before any lane.
    expect((await poolWaits('first')) - first).toBe(1);
  });

  it('runs those of its requests at once with another in the fair lane', async () => {
    const [first, fair] = [await poolWaits('first'), await poolWaits('fair')];
    await Promise.all(Array.from({ length: 10 }, readOperation));
    expect((await poolWaits('fair')) - fair).toBeGreaterThan(0);
    expect((await poolWaits('first')) - first).toBeLessThan(10);
  });
});
