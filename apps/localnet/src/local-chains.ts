import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAnvil } from './anvil';
import { sweepEvmPool, type SweepPace } from './evm-pool-sweeper';
import { startSenderCapProxy, type SenderCapProxy } from './sender-cap-proxy';
import { startSolanaRpc } from './solana/solana-rpc';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

export interface LocalChainsOptions {
  evmPort?: number;
  solanaPort?: number;
  solanaWsPort?: number;
  slotMs?: number;
  /** Persists both chains' state here when set; tests leave it unset to start clean. */
  dataDir?: string;
  anvilArgs?: string[];
  /** anvil mines a block every this many seconds (decimals allowed) instead of one per transaction. */
  evmBlockTimeSeconds?: number;
  /**
   * Besides a block per transaction, anvil also mines one every this many seconds, busy or idle
   * (`--mixed-mining`), as a public chain keeps producing blocks: for a service waiting for
   * confirmations deeper than one block, which an idle chain of automine alone never reaches.
   */
  evmIdleBlockSeconds?: number;
  /** Solana transactions land when their slot ends instead of at once (see LedgerOptions). */
  solanaLandAtSlotBoundary?: boolean;
  /**
   * Round-trip time added to every RPC and WebSocket exchange, in milliseconds: the chains are
   * reached through a latency proxy, whose URLs are the ones returned.
   */
  rpcLatencyMs?: number;
  /**
   * How many pending transactions one EVM sender may have, as public nodes cap it: a send past
   * it is refused in geth's words ("account limit exceeded: pooled N txs", see
   * sender-cap-proxy.ts), a replacement of a pending nonce still taken. anvil is then reached
   * through a JSON-RPC proxy that enforces it (behind the latency proxy when both are on).
   * 0 or unset: no cap, as anvil alone.
   */
  evmSenderPendingCap?: number;
}

export interface LocalChains {
  evmRpcUrl: string;
  solanaRpcUrl: string;
  solanaWsUrl: string;
  stop(): Promise<void>;
}

/**
 * A chain that behaves like a public network for benchmarks: 1 s EVM blocks, 400 ms Solana slots
 * whose transactions land when the slot ends, 30 ms of RPC round trip, and at most 64 pending
 * transactions per EVM sender, as public nodes cap one sender (see evmSenderPendingCap).
 */
export const REALISTIC_CHAINS = {
  evmBlockTimeSeconds: 1,
  slotMs: 400,
  solanaLandAtSlotBoundary: true,
  rpcLatencyMs: 30,
  evmSenderPendingCap: 64,
} as const satisfies LocalChainsOptions;

export const ANVIL_STATE_FILE = 'anvil-state.json';

/** How often the quick chain looks for transactions automine left in the pool (see sweepEvmPool). */
export const QUICK_CHAIN_SWEEP: SweepPace = { idleMs: 1_000, busyMs: 50, busyForMs: 5_000 };

/** Interval blocks only when a block time is asked for; otherwise a block per transaction. */
function evmMiningArgs(opts: LocalChainsOptions): string[] {
  if (opts.evmBlockTimeSeconds) return ['--block-time', String(opts.evmBlockTimeSeconds)];
  if (opts.evmIdleBlockSeconds) {
    return ['--mixed-mining', '--block-time', String(opts.evmIdleBlockSeconds)];
  }
  return [];
}

export async function startLocalChains(opts: LocalChainsOptions = {}): Promise<LocalChains> {
  // anvil writes its state file only into a directory that already exists.
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const [anvil, solana] = await Promise.allSettled([
    startAnvil({
      port: opts.evmPort ?? 8545,
      stateFile: opts.dataDir ? join(opts.dataDir, ANVIL_STATE_FILE) : undefined,
      args: [...evmMiningArgs(opts), ...(opts.anvilArgs ?? [])],
    }),
    startSolanaRpc({
      port: opts.solanaPort ?? 8899,
      wsPort: opts.solanaWsPort,
      slotMs: opts.slotMs,
      landAtSlotBoundary: opts.solanaLandAtSlotBoundary,
      dataDir: opts.dataDir,
    }),
  ]);
  if (anvil.status === 'rejected' || solana.status === 'rejected') {
    await Promise.all(
      [anvil, solana].map((r) => (r.status === 'fulfilled' ? r.value.stop() : Promise.resolve())),
    );
    throw anvil.status === 'rejected' ? anvil.reason : (solana as PromiseRejectedResult).reason;
  }
  // The sweeper and the cap proxy talk to anvil itself: the latency is the service's link only.
  const sweeper = opts.evmBlockTimeSeconds
    ? undefined
    : sweepEvmPool(anvil.value.url, QUICK_CHAIN_SWEEP);
  let capProxy: SenderCapProxy | undefined;
  let proxies: Awaited<ReturnType<typeof latencyProxies>> | undefined;
  try {
    if (opts.evmSenderPendingCap) {
      capProxy = await startSenderCapProxy(anvil.value.url, { cap: opts.evmSenderPendingCap });
    }
    const direct = {
      evmRpcUrl: capProxy?.url ?? anvil.value.url,
      solanaRpcUrl: solana.value.rpcUrl,
      solanaWsUrl: solana.value.wsUrl,
    };
    if (opts.rpcLatencyMs) proxies = await latencyProxies(direct, opts.rpcLatencyMs);
  } catch (err) {
    sweeper?.stop();
    await capProxy?.close();
    await Promise.all([anvil.value.stop(), solana.value.stop()]);
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    evmRpcUrl: proxies?.evmRpc.url ?? capProxy?.url ?? anvil.value.url,
    solanaRpcUrl: proxies?.solanaRpc.url ?? solana.value.rpcUrl,
    solanaWsUrl: proxies?.solanaWs.url ?? solana.value.wsUrl,
    stop: () =>
      (stopping ??= (async () => {
        sweeper?.stop();
        await Promise.all(Object.values(proxies ?? {}).map((proxy) => proxy.close()));
        await capProxy?.close();
        await Promise.all([anvil.value.stop(), solana.value.stop()]);
      })()),
  };
}

async function latencyProxies(
  urls: { evmRpcUrl: string; solanaRpcUrl: string; solanaWsUrl: string },
  latencyMs: number,
): Promise<{ evmRpc: TcpProxy; solanaRpc: TcpProxy; solanaWs: TcpProxy }> {
  const [evmRpc, solanaRpc, solanaWs] = await Promise.all(
    [urls.evmRpcUrl, urls.solanaRpcUrl, urls.solanaWsUrl].map((url) =>
      startTcpProxy(url, { latencyMs }),
    ),
  );
  return { evmRpc, solanaRpc, solanaWs };
}
