/**
 * Mines a block when transactions have sat in anvil's pool through a whole interval. anvil's
 * automine can leave ready transactions unmined when many arrive at once out of nonce order
 * (foundry-rs issue 10122; seen here as a wallet's transactions accepted and never mined).
 * `--mixed-mining` released them too, but it mined a block every interval even when idle, and
 * anvil's cost per block grows with the number of blocks: a day idle was 86,400 empty blocks.
 */
export interface EvmPoolSweeper {
  stop(): void;
}

export function sweepEvmPool(rpcUrl: string, intervalMs: number): EvmPoolSweeper {
  let pendingLastTime = false;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void sweep()
      .catch(() => undefined) // anvil restarting or stopping: the next interval tries again
      .finally(() => (busy = false));
  }, intervalMs);
  timer.unref();

  async function sweep(): Promise<void> {
    const [status, automine] = await Promise.all([
      rpc<{ pending: string }>(rpcUrl, 'txpool_status'),
      rpc<boolean>(rpcUrl, 'anvil_getAutomine'),
    ]);
    const pendingNow = Number(status.pending) > 0;
    if (shouldSweep(pendingLastTime, pendingNow, automine)) await rpc(rpcUrl, 'evm_mine');
    pendingLastTime = pendingNow;
  }

  return { stop: () => clearInterval(timer) };
}

/**
 * Whether to mine now: transactions pending at two looks in a row (automine had a whole interval
 * to take them), while automine is on. With automine off (`evm_setAutomine false`: a test holding
 * transactions in the pool) whoever turned it off decides when blocks come.
 */
export function shouldSweep(pendingLastTime: boolean, pendingNow: boolean, automine: boolean) {
  return automine && pendingLastTime && pendingNow;
}

async function rpc<T>(url: string, method: string): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
