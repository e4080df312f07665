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

/** How `waitUntil` polls, beyond its probe and timeout. */
export interface WaitOptions {
  /** Called before each probe: may throw to stop waiting early (e.g. the process died). */
  check?: () => void;
  /** The pause between probes (default 50 ms). */
  intervalMs?: number;
  /** What is awaited, for the timeout's message: `waited <timeoutMs> ms for <what>`. */
  what?: string;
}

/** Polls `probe` until it returns true, or throws after `timeoutMs`. */
export async function waitUntil(
  probe: () => boolean | Promise<boolean>,
  timeoutMs: number,
  { check, intervalMs = 50, what }: WaitOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    check?.();
    if (await probe()) return;
    if (Date.now() > deadline) {
      throw new Error(
        what ? `waited ${timeoutMs} ms for ${what}` : `not ready after ${timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
