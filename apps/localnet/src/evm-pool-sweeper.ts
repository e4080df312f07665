/**
 * Mines a block when transactions have sat in anvil's pool between two looks. anvil's
 * automine can leave ready transactions unmined when many arrive at once out of nonce order
 * (foundry-rs issue 10122; seen here as a wallet's transactions accepted and never mined).
 * `--mixed-mining` released them too, but it mined a block every interval even when idle, and
 * anvil's cost per block grows with the number of blocks: a day idle was 86,400 empty blocks.
 */
export interface EvmPoolSweeper {
  stop(): void;
}

/**
 * How often the sweeper looks at the pool: every `busyMs` for `busyForMs` after a look that found
 * transactions pending, every `idleMs` otherwise. Under a flood automine can stop taking them
 * altogether and the sweeper is what mines; the pool it empties fills again within a busy pause,
 * so it stays busy through the flood. At one look a second a flood's transactions waited a second
 * or two each (a light tenant's among them), and held their in-flight slots as long. Idle, one
 * call a second.
 */
export interface SweepPace {
  idleMs: number;
  busyMs: number;
  busyForMs: number;
}

export function sweepEvmPool(rpcUrl: string, pace: SweepPace): EvmPoolSweeper {
  let pendingLastTime = false;
  let pendingSeenAt = -Infinity;
  let stopped = false;
  let timer = setTimeout(look, pace.idleMs);
  timer.unref();

  function look(): void {
    void sweep()
      .catch(() => undefined) // anvil restarting or stopping: the next look tries again
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(look, nextLookMs(Date.now() - pendingSeenAt, pace));
        timer.unref();
      });
  }

  async function sweep(): Promise<void> {
    const status = await rpc<{ pending: string }>(rpcUrl, 'txpool_status');
    const pendingNow = Number(status.pending) > 0;
    // Whether automine is on matters only to a pool with something to mine.
    const automine = pendingNow && (await rpc<boolean>(rpcUrl, 'anvil_getAutomine'));
    if (pendingNow) pendingSeenAt = Date.now();
    if (shouldSweep(pendingLastTime, pendingNow, automine)) await rpc(rpcUrl, 'evm_mine');
    pendingLastTime = pendingNow;
  }

  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** The pause before the next look: short for a while after transactions were seen pending. */
export function nextLookMs(sincePendingMs: number, pace: SweepPace): number {
  return sincePendingMs < pace.busyForMs ? pace.busyMs : pace.idleMs;
}

/**
 * Whether to mine now: transactions pending at two looks in a row (automine had a whole pause
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
