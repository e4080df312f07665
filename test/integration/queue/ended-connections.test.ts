import { startTcpProxy, type TcpProxy } from '@app/localnet/tcp-proxy';
import { connectionReady, redisClient, type RedisConnection } from '@app/queue';
import { EndedConnectionGuard } from '../../../apps/worker/src/ended-connections';

const GRACE_MS = 300;

/**
 * The worker's ConnectionWatchdog exits when a Redis connection ends for good. It must hear that
 * from a real ioredis connection, and never while ioredis is only reconnecting through an outage.
 */
describe('EndedConnectionGuard on ioredis connections', () => {
  let proxy: TcpProxy;
  let connection: RedisConnection;
  let ended: string[];
  let guard: EndedConnectionGuard;

  beforeEach(async () => {
    proxy = await startTcpProxy(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    connection = redisClient(
      { redisUrl: proxy.url, redisAuth: {} },
      { maxRetriesPerRequest: null },
    );
    ended = [];
    guard = new EndedConnectionGuard((name) => ended.push(name), GRACE_MS);
    guard.watch('queue', connection);
    await connectionReady(connection);
  });

  afterEach(async () => {
    guard.stop();
    if (connection.status !== 'end') await connection.quit();
    await proxy.close();
  });

  it('stays quiet through an outage, and the connection comes back', async () => {
    proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(connection.status).not.toBe('ready');
    proxy.restore();
    await connectionReady(connection);
    expect(await connection.ping()).toBe('PONG');
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS * 2));
    expect(ended).toEqual([]);
  });

  it('calls out a connection ended for good while the process runs', async () => {
    await connection.quit(); // ended, as ioredis ends a connection it gives up
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS * 2));
    expect(connection.status).toBe('end');
    expect(ended).toEqual(['queue']);
  });

  it('says nothing of one the process ends while stopping', async () => {
    guard.stop();
    await connection.quit();
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS * 2));
    expect(ended).toEqual([]);
  });
});
