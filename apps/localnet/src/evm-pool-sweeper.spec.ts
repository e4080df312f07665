import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nextLookMs, shouldSweep, sweepEvmPool } from './evm-pool-sweeper';

describe('shouldSweep', () => {
  it('mines what automine left pending through a whole interval', () => {
    expect(shouldSweep(true, true, true)).toBe(true);
  });

  it('waits while the pending transactions are new, or when none are', () => {
    expect(shouldSweep(false, true, true)).toBe(false);
    expect(shouldSweep(true, false, true)).toBe(false);
    expect(shouldSweep(false, false, true)).toBe(false);
  });

  it('never mines while automine is off: whoever turned it off holds those transactions', () => {
    expect(shouldSweep(true, true, false)).toBe(false);
  });
});

describe('nextLookMs', () => {
  const pace = { idleMs: 1_000, busyMs: 50, busyForMs: 5_000 };

  it('looks again soon for a while after transactions were pending, though the pool emptied', () => {
    expect(nextLookMs(0, pace)).toBe(50);
    expect(nextLookMs(4_999, pace)).toBe(50);
  });

  it('looks seldom once nothing has been pending for a while', () => {
    expect(nextLookMs(5_000, pace)).toBe(1_000);
    expect(nextLookMs(Infinity, pace)).toBe(1_000);
  });
});

describe('sweepEvmPool', () => {
  /** A node whose pool always holds a transaction automine left: when each evm_mine came. */
  async function stuckPoolNode(): Promise<{ url: string; minedAt: number[]; close(): void }> {
    const minedAt: number[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        if (method === 'evm_mine') minedAt.push(Date.now());
        const result =
          method === 'txpool_status' ? { pending: '0x1', queued: '0x0' } : method !== 'evm_mine';
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, minedAt, close: () => server.close() };
  }

  it('mines every busy pause while transactions stay pending, not every idle one', async () => {
    const node = await stuckPoolNode();
    const sweeper = sweepEvmPool(node.url, { idleMs: 1_000, busyMs: 50, busyForMs: 5_000 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_600));
    } finally {
      sweeper.stop();
      node.close();
    }
    // The first look at 1 s (idle), then one every 50 ms, each mining from the second on; at
    // one look a second it would not have mined yet.
    expect(node.minedAt.length).toBeGreaterThanOrEqual(5);
  });
});
