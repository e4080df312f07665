import { DataSource, type QueryRunner } from 'typeorm';
import { PriorityPool, QueryPriority, dataSourceOptions } from '@app/database';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

/**
 * A query made under QueryPriority.first takes the next free pooled connection ahead of every
 * query already waiting outside it; among themselves each lane keeps its order. With one
 * connection held, the order in which the waiting queries finish is the order they got it.
 */
describe('the pool’s first lane', () => {
  let services: TestServices;

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await services?.stop();
  });

  const inOrder = () => {
    const order: string[] = [];
    const track = (label: string, query: Promise<unknown>) =>
      query.then(() => {
        order.push(label);
      });
    return { order, track };
  };

  it('hands the pool’s next connection to the first lane, each lane in its own order', async () => {
    const pool = new PriorityPool({ connectionString: services.databaseUrl, max: 1 });
    try {
      const held = await pool.connect();
      const { order, track } = inOrder();
      const query = (label: string) => track(label, pool.query('SELECT 1'));
      const waiting = [
        query('fair 1'),
        query('fair 2'),
        QueryPriority.first(() => query('first 1')),
        query('fair 3'),
        QueryPriority.first(async () => {
          await Promise.resolve(); // deeper in the lane's awaits: still the lane
          await query('first 2');
        }),
      ];
      await new Promise((resolve) => setImmediate(resolve));
      expect(pool.waitingCount).toBe(5);
      held.release();
      await Promise.all(waiting);
      expect(order).toEqual(['first 1', 'first 2', 'fair 1', 'fair 2', 'fair 3']);
    } finally {
      await pool.end();
    }
  });

  it('is the pool of every DataSource the service makes', async () => {
    const dataSource = await new DataSource(
      dataSourceOptions(services.databaseUrl, 1),
    ).initialize();
    let holder: QueryRunner | undefined;
    try {
      expect((dataSource.driver as unknown as { master: unknown }).master).toBeInstanceOf(
        PriorityPool,
      );
      holder = dataSource.createQueryRunner();
      await holder.connect();
      const { order, track } = inOrder();
      const waiting = [
        track('fair', dataSource.query('SELECT 1')),
        QueryPriority.first(() => track('first', dataSource.query('SELECT 1'))),
      ];
      await new Promise((resolve) => setImmediate(resolve));
      await holder.release();
      await Promise.all(waiting);
      expect(order).toEqual(['first', 'fair']);
    } finally {
      await holder?.release();
      await dataSource.destroy();
    }
  });
});
