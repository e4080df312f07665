import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAnvil } from './anvil';
import { sweepEvmPool } from './evm-pool-sweeper';
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
}

export interface LocalChains {
  evmRpcUrl: string;
  solanaRpcUrl: string;
  solanaWsUrl: string;
  stop(): Promise<void>;
}

/**
 * A chain that behaves like a public network for benchmarks: 1 s EVM blocks, 400 ms Solana slots
 * whose transactions land when the slot ends, and 30 ms of RPC round trip.
 */
export const REALISTIC_CHAINS = {
  evmBlockTimeSeconds: 1,
  slotMs: 400,
  solanaLandAtSlotBoundary: true,
  rpcLatencyMs: 30,
} as const satisfies LocalChainsOptions;

export const ANVIL_STATE_FILE = 'anvil-state.json';

/** How often the quick chain looks for transactions automine left in the pool (see sweepEvmPool). */
export const QUICK_CHAIN_SWEEP_MS = 1_000;

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
  const sweeper = opts.evmBlockTimeSeconds
    ? undefined
    : sweepEvmPool(anvil.value.url, QUICK_CHAIN_SWEEP_MS);
  const direct = {
    evmRpcUrl: anvil.value.url,
    solanaRpcUrl: solana.value.rpcUrl,
    solanaWsUrl: solana.value.wsUrl,
  };
  let proxies: Awaited<ReturnType<typeof latencyProxies>> | undefined;
  try {
    if (opts.rpcLatencyMs) proxies = await latencyProxies(direct, opts.rpcLatencyMs);
  } catch (err) {
    sweeper?.stop();
    await Promise.all([anvil.value.stop(), solana.value.stop()]);
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    evmRpcUrl: proxies?.evmRpc.url ?? direct.evmRpcUrl,
    solanaRpcUrl: proxies?.solanaRpc.url ?? direct.solanaRpcUrl,
    solanaWsUrl: proxies?.solanaWs.url ?? direct.solanaWsUrl,
    stop: () =>
      (stopping ??= (async () => {
        sweeper?.stop();
        await Promise.all(Object.values(proxies ?? {}).map((proxy) => proxy.close()));
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
