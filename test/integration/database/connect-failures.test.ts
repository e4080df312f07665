import { createServer, type Server, type Socket } from 'node:net';
import type { DataSource } from 'typeorm';
import type { Pool } from 'pg';
import { AppError } from '@app/common';
import { ConnectPhaseClient, createDataSource, wroteNothing } from '@app/database';
import { storeThroughCut } from '@app/domain/operations/store-through-cut';
import { startTcpProxy, type TcpProxy } from '@app/localnet/tcp-proxy';
import { waitUntil } from '@app/localnet/net.util';
import { queryDatabase } from '@test/support/chain-reads';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const stored = { noun: 'operation', id: 'op-1', path: '/operations/op-1' } as const;

/**
 * Whether a write failed before anything was sent (the API says "nothing was accepted") or was
 * cut after (read back, or "outcome unknown") is told by when it failed, not by the error's
 * words: a connection the server's side accepts and then resets or closes fails with the same
 * ECONNRESET or "Connection terminated unexpectedly" as one cut mid-statement.
 */
describe('connect failures of the pool', () => {
  let services: TestServices;
  let proxy: TcpProxy;
  let dataSource: DataSource;

  beforeAll(async () => {
    services = await startTestServices();
    proxy = await startTcpProxy(services.databaseUrl);
    dataSource = await createDataSource(proxy.url).initialize();
  });

  afterEach(() => proxy.restore());

  afterAll(async () => {
    await dataSource?.destroy();
    await proxy?.close();
    await services?.stop();
  });

  const pool = (): Pool => (dataSource.driver as unknown as { master: Pool }).master;

  it('a store whose connection is reset as it is made says nothing was sent', async () => {
    proxy.cut();
    // The pooled connections were reset with the link: the store connects anew.
    await waitUntil(async () => pool().totalCount === 0, 5_000, {
      what: 'the pool to drop its clients',
    });
    const readBack = jest.fn(() => dataSource.query('SELECT 1'));

    const error = await storeThroughCut(
      () => dataSource.query('SELECT 1'),
      undefined,
      readBack,
      stored,
    ).catch((e: unknown) => e);

    expect(error).not.toBeInstanceOf(AppError);
    expect(wroteNothing(error)).toBe(true);
    expect(readBack).not.toHaveBeenCalled();
  });

  it('a statement cut on a connection made earlier may have landed: it is read back', async () => {
    const statement = `SELECT pg_sleep(5) -- cut-${Date.now()}`;
    const running = dataSource.query(statement).catch((e: unknown) => e);
    // Straight to Postgres: the statement has reached the server and runs.
    const isRunning = async (): Promise<boolean> =>
      (
        await queryDatabase(
          services.databaseUrl,
          `SELECT 1 FROM pg_stat_activity WHERE query = $1 AND state = 'active'`,
          [statement],
        )
      ).length === 1;
    await waitUntil(isRunning, 5_000, { what: 'the statement to run' });
    proxy.cut();
    const error = await running;

    expect(wroteNothing(error)).toBe(false);
    const outcome = await storeThroughCut(
      () => Promise.reject(error as Error),
      undefined,
      () => Promise.resolve(null),
      stored,
    ).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(AppError);
    expect((outcome as AppError).message).toMatch(/whether it was accepted is not known/);
  });

  it('a server that closes the connection before it is made fails to connect', async () => {
    const accepted = new Set<Socket>();
    const closing: Server = createServer((socket) => {
      accepted.add(socket);
      socket.end();
    });
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    const { port } = closing.address() as { port: number };
    try {
      const client = new ConnectPhaseClient({
        connectionString: `postgres://x@127.0.0.1:${port}/x`,
      });
      const error = await client.connect().catch((e: unknown) => e);
      expect(String(error)).toMatch(/Connection terminated unexpectedly/);
      expect(wroteNothing(error)).toBe(true);
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => closing.close(resolve));
    }
  });
});
