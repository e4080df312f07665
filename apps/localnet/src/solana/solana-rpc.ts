import { join } from 'node:path';
import { JsonRpcDispatcher } from './json-rpc';
import { Ledger } from './ledger';
import { createRpcMethods } from './rpc-methods';
import { startRpcServer } from './rpc-server';
import { loadSnapshot, SnapshotWriter } from './snapshot';
import { SubscriptionServer } from './ws-subscriptions';

export interface SolanaRpcOptions {
  port?: number;
  wsPort?: number;
  /** Milliseconds per slot (default 400): blockhashes expire after 150 slots. */
  slotMs?: number;
  /** Transactions land (status, history, notifications) when their slot ends; see LedgerOptions. */
  landAtSlotBoundary?: boolean;
  /** Keeps an accounts snapshot here (loaded on start, written periodically and on stop). */
  dataDir?: string;
  host?: string;
}

export interface SolanaRpcHandle {
  rpcUrl: string;
  wsUrl: string;
  stop(): Promise<void>;
}

export const SNAPSHOT_FILE = 'solana-accounts.json';

/** A Solana JSON-RPC + PubSub server backed by an in-process litesvm. */
export async function startSolanaRpc(opts: SolanaRpcOptions = {}): Promise<SolanaRpcHandle> {
  const host = opts.host ?? '127.0.0.1';
  const slotMs = opts.slotMs ?? 400;
  const ledger = new Ledger({ slotMs, landAtSlotBoundary: opts.landAtSlotBoundary });
  const snapshotFile = opts.dataDir ? join(opts.dataDir, SNAPSHOT_FILE) : undefined;
  if (snapshotFile) loadSnapshot(ledger, snapshotFile);

  const subscriptions = new SubscriptionServer(ledger);
  const requestedPort = opts.port ?? 8899;
  const { server, port } = await startRpcServer(new JsonRpcDispatcher(createRpcMethods(ledger)), {
    host,
    port: requestedPort,
  });
  subscriptions.attach(server);
  let wsPort: number;
  try {
    wsPort = await subscriptions.listen(
      opts.wsPort ?? (requestedPort === 0 ? 0 : requestedPort + 1),
      host,
    );
  } catch (err) {
    server.close();
    await subscriptions.close();
    throw err;
  }

  const clock = setInterval(() => ledger.advanceSlot(), slotMs);
  const snapshots = snapshotFile ? new SnapshotWriter(ledger, snapshotFile) : undefined;
  snapshots?.start();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      clearInterval(clock);
      server.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        subscriptions.close(),
      ]);
      await snapshots?.stop();
    })());

  return { rpcUrl: `http://${host}:${port}`, wsUrl: `ws://${host}:${wsPort}`, stop };
}
