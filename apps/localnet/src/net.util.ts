import { createServer } from 'node:net';

export function findFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns true; `check` may throw to abort early (e.g. the process died). */
export async function waitUntil(
  probe: () => Promise<boolean>,
  timeoutMs: number,
  check: () => void = () => undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    check();
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
