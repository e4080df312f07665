import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAnvil } from './anvil';
import { startSolanaRpc } from './solana/solana-rpc';

export interface LocalChainsOptions {
  evmPort?: number;
  solanaPort?: number;
  solanaWsPort?: number;
  slotMs?: number;
  /** Persists both chains' state here when set; tests leave it unset to start clean. */
  dataDir?: string;
  anvilArgs?: string[];
}

export interface LocalChains {
  evmRpcUrl: string;
  solanaRpcUrl: string;
  solanaWsUrl: string;
  stop(): Promise<void>;
}

export const ANVIL_STATE_FILE = 'anvil-state.json';

export async function startLocalChains(opts: LocalChainsOptions = {}): Promise<LocalChains> {
  // anvil writes its state file only into a directory that already exists.
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const [anvil, solana] = await Promise.allSettled([
    startAnvil({
      port: opts.evmPort ?? 8545,
      stateFile: opts.dataDir ? join(opts.dataDir, ANVIL_STATE_FILE) : undefined,
      args: opts.anvilArgs,
    }),
    startSolanaRpc({
      port: opts.solanaPort ?? 8899,
      wsPort: opts.solanaWsPort,
      slotMs: opts.slotMs,
      dataDir: opts.dataDir,
    }),
  ]);
  if (anvil.status === 'rejected' || solana.status === 'rejected') {
    await Promise.all(
      [anvil, solana].map((r) => (r.status === 'fulfilled' ? r.value.stop() : Promise.resolve())),
    );
    throw anvil.status === 'rejected' ? anvil.reason : (solana as PromiseRejectedResult).reason;
  }
  let stopping: Promise<void> | undefined;
  return {
    evmRpcUrl: anvil.value.url,
    solanaRpcUrl: solana.value.rpcUrl,
    solanaWsUrl: solana.value.wsUrl,
    stop: () =>
      (stopping ??= Promise.all([anvil.value.stop(), solana.value.stop()]).then(() => undefined)),
  };
}
