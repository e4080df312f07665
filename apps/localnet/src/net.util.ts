import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where the ports handed out start: above the well-known and common service ports. */
const LOWEST_PORT = 15_000;
const handedOut = new Set<number>();

/**
 * A port that nothing listens on, for a process about to be started on it.
 *
 * Picked below the kernel's ephemeral range: a port the kernel handed out itself (`listen(0)`)
 * can be taken, in the seconds before the process binds it, as the local port of any outgoing
 * connection (a pool's, a proxy's), and then the process fails with EADDRINUSE. No port is
 * handed out twice by one process, since the first taker may not have bound it yet.
 *
 * `companionOffset`: the process also binds the port this far above (a Redis Cluster node its
 * bus port, 10,000 up), which must then be free and below the range too.
 */
export async function findFreePort(host: string, companionOffset = 0): Promise<number> {
  const highest = ephemeralRangeStart() - 1 - companionOffset;
  if (highest - LOWEST_PORT < 1_000) {
    if (companionOffset === 0) return kernelPickedPort(host);
    throw new Error(
      `no room below port ${highest + companionOffset + 1} for a port and +${companionOffset}`,
    );
  }
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (highest - LOWEST_PORT + 1));
    const ports = companionOffset === 0 ? [port] : [port, port + companionOffset];
    if (ports.some((each) => handedOut.has(each))) continue;
    if (!(await everyListenable(host, ports))) continue;
    for (const each of ports) handedOut.add(each);
    return port;
  }
  throw new Error(`no free port found on ${host} in ${LOWEST_PORT}-${highest}`);
}

async function everyListenable(host: string, ports: number[]): Promise<boolean> {
  for (const port of ports) if (!(await canListen(host, port))) return false;
  return true;
}

/** The first port of the kernel's ephemeral range (Linux's default where it cannot be read). */
export function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    return Number(low) || 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

function kernelPickedPort(host: string): Promise<number> {
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
