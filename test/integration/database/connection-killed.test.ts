import { Pool } from 'pg';
import { ConnectPhaseClient } from '@app/database';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

/**
 * A Postgres restart ends every backend with 57P01 ("terminating connection due to
 * administrator command"), which node-postgres emits as an 'error' event on the client. A client
 * the pool had handed out with no 'error' listener on it at that moment (node-postgres#2762)
 * threw it as an uncaught exception: a worker died that way during the chaos suite's restart.
 */
describe('a pooled connection whose backend is terminated', () => {
  let services: TestServices;

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await services?.stop();
  });

  it('does not take the process down, and the pool connects anew', async () => {
    const pool = new Pool({
      connectionString: services.databaseUrl,
      max: 2,
      Client: ConnectPhaseClient,
    });
    pool.on('error', () => undefined); // the pool's own idle clients: handled as the service does
    const uncaught: unknown[] = [];
    const listener = (error: unknown) => uncaught.push(error);
    const [jestListener] = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', listener);
    try {
      const client = await pool.connect(); // handed out, no listener of the holder's own
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const admin = await pool.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      admin.release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(uncaught).toEqual([]);
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      const { rows: again } = await pool.query<{ one: number }>('SELECT 1 AS one');
      expect(again[0].one).toBe(1);
    } finally {
      process.removeListener('uncaughtException', listener);
      if (jestListener) process.on('uncaughtException', jestListener);
      await pool.end();
    }
  });
});
