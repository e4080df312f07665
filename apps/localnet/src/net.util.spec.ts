import { createServer, type Server } from 'node:net';
import { ephemeralRangeStart, findFreePort } from './net.util';

describe('findFreePort', () => {
  it('picks ports below the ephemeral range, never one twice in a process', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 300; i++) ports.push(await findFreePort('127.0.0.1'));
    expect(new Set(ports).size).toBe(ports.length);
    // An outgoing connection's local port comes from the ephemeral range: none of these can be one.
    for (const port of ports) expect(port).toBeLessThan(ephemeralRangeStart());
  });

  it('keeps a companion port (a Redis Cluster bus, 10,000 up) free and below the range too', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 100; i++) ports.push(await findFreePort('127.0.0.1', 10_000));
    const companions = ports.map((port) => port + 10_000);
    for (const companion of companions) expect(companion).toBeLessThan(ephemeralRangeStart());
    // Neither a port nor a companion is handed out again, as either.
    const all = [
      ...ports,
      ...companions,
      ...(await Promise.all([1, 2, 3].map(() => findFreePort('127.0.0.1')))),
    ];
    expect(new Set(all).size).toBe(all.length);
  });

  it('hands out a port that can be listened on', async () => {
    const port = await findFreePort('127.0.0.1');
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });

  it('skips ports something listens on', async () => {
    const servers: Server[] = [];
    const taken = new Set<number>();
    try {
      // Every port in a slice of the range taken, then many picks: none lands in the slice.
      for (let port = 15_000; port < 15_400; port++) {
        const server = createServer();
        const bound = await new Promise<boolean>((resolve) => {
          server.once('error', () => resolve(false));
          server.listen(port, '127.0.0.1', () => resolve(true));
        });
        if (bound) {
          servers.push(server);
          taken.add(port);
        }
      }
      for (let i = 0; i < 2_000; i++) {
        expect(taken.has(await findFreePort('127.0.0.1'))).toBe(false);
      }
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});
