/**
 * Does one account's airdrop starve another? On one network (`base`) of one service:
 *   1. account B mints NFTs synchronously, one after another, on a quiet service: its idle
 *      latency (p50);
 *   2. account A floods N async mints (`Prefer: respond-async`, 32 in flight) and, once A has a
 *      head start, B mints synchronously again, one after another, while A's flood is pending.
 * B's latency during the flood (p50, p99, the slowest) against its idle p50; target: the slowest
 * <= 3x idle p50. A B mint still pending when `SYNC_WAIT_MS` ends is followed at
 * GET /operations/{id}, so its latency is the time to confirmation; one still pending when the
 * run's time limit ends counts with the time it had waited (a lower bound, reported as such).
 * Run: npm run bench:fairness   (BENCH_FLOOD_MINTS=10000, BENCH_IDLE_MINTS=20,
 *   BENCH_FLOOD_SAMPLE_MINTS=100 B mints at most during the flood, BENCH_FLOOD_HEAD_START=500,
 *   BENCH_TIME_LIMIT_S=120 for B's part of the flood, BENCH_WORKERS=1, BENCH_QUEUE_SHARDS=1;
 *   the chain: see benchChain)
 */
import type { HttpClient } from '@test/support/http-client';
import { newAccountClient, startServiceStack } from '@test/support/service-stack';
import {
  benchChain,
  evmWalletOf,
  IMAGE,
  intFromEnv,
  operationCounts,
  serviceCollection,
} from './evm-helpers';
import { percentile, round, runConcurrently } from './stats';

const FLOOD_CLIENTS = 32;

export interface FairnessResult {
  chain: string;
  workers: number;
  floodMints: number;
  floodAccepted: number;
  floodConfirmedAtEnd: number;
  idleMints: number;
  idleP50: number;
  floodSampleMints: number;
  floodP50: number;
  floodP99: number;
  floodMax: number;
  /** B mints the time limit cut short: their waits are lower bounds. */
  floodUnfinished: number;
  maxOverIdleP50: number;
}

interface Timed {
  ms: number;
  settled: boolean;
}

export async function run(
  floodMints = intFromEnv('BENCH_FLOOD_MINTS', 10_000),
): Promise<FairnessResult> {
  const chain = benchChain();
  const workers = intFromEnv('BENCH_WORKERS', 1);
  const stack = await startServiceStack({
    workers,
    chains: chain.options,
    env: {
      RATE_LIMIT_REQUESTS: '1000000',
      // One shard by default: A's and B's wallets meet on one queue (the case the scheduler is
      // for; with more shards they may not, whatever the scheduler does).
      QUEUE_SHARDS: String(intFromEnv('BENCH_QUEUE_SHARDS', 1)),
    },
  });
  try {
    const [a, b] = await Promise.all([newAccountClient(stack.http), newAccountClient(stack.http)]);
    const [collectionA, collectionB] = await Promise.all([
      serviceCollection(a.api),
      serviceCollection(b.api),
    ]);
    const mintB = (name: string, deadline: number) => syncMint(b.api, collectionB, name, deadline);

    const idle: Timed[] = [];
    for (let i = 0; i < intFromEnv('BENCH_IDLE_MINTS', 20); i++) {
      idle.push(await mintB(`idle ${i}`, Infinity));
    }

    let stopFlood = false;
    let accepted = 0;
    let floodError: Error | undefined;
    const flood = runConcurrently(floodMints, FLOOD_CLIENTS, async (i) => {
      if (stopFlood) return;
      const response = await a.api.post(
        `/nfts/${collectionA}/mint`,
        { name: `Flood ${i}`, images: [IMAGE] },
        { prefer: 'respond-async' },
      );
      if (response.status !== 202) throw new Error(`flood mint: ${response.status}`);
      accepted++;
    }).catch((error: unknown) => {
      floodError = error instanceof Error ? error : new Error(`flood: ${JSON.stringify(error)}`);
    });
    const headStart = Math.min(floodMints, intFromEnv('BENCH_FLOOD_HEAD_START', 500));
    while (accepted < headStart && !floodError) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const walletA = evmWalletOf(a.account);
    const deadline = Date.now() + intFromEnv('BENCH_TIME_LIMIT_S', 120) * 1000;
    const sampleSize = intFromEnv('BENCH_FLOOD_SAMPLE_MINTS', 100);
    const during: Timed[] = [];
    let floodPending = true;
    while (during.length < sampleSize && floodPending && !floodError && Date.now() < deadline) {
      during.push(await mintB(`during ${during.length}`, deadline));
      const countsA = await operationCounts(stack.env.DATABASE_URL, 'nft.mint', walletA);
      floodPending = accepted < floodMints || countsA.pending > 0;
    }
    stopFlood = true;
    await flood;
    if (floodError) throw floodError;
    const countsA = await operationCounts(stack.env.DATABASE_URL, 'nft.mint', walletA);

    const idleP50 = percentile(times(idle), 50);
    const floodMax = Math.max(...times(during));
    return {
      chain: chain.name,
      workers,
      floodMints,
      floodAccepted: accepted,
      floodConfirmedAtEnd: countsA.confirmed,
      idleMints: idle.length,
      idleP50: round(idleP50),
      floodSampleMints: during.length,
      floodP50: round(percentile(times(during), 50)),
      floodP99: round(percentile(times(during), 99)),
      floodMax: round(floodMax),
      floodUnfinished: during.filter((t) => !t.settled).length,
      maxOverIdleP50: round(floodMax / idleP50, 1),
    };
  } finally {
    await stack.stop();
  }
}

function times(timed: Timed[]): number[] {
  return timed.map((t) => t.ms);
}

/** A synchronous mint's time to confirmation, following the operation past SYNC_WAIT_MS. */
async function syncMint(
  api: HttpClient,
  collection: string,
  name: string,
  deadline: number,
): Promise<Timed> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const response = await api.post(`/nfts/${collection}/mint`, { name, images: [IMAGE] });
  if (response.status === 200 && response.body.data.status === 'confirmed') {
    return { ms: elapsed(), settled: true };
  }
  if (response.status !== 202) throw new Error(`B's mint: ${JSON.stringify(response.body)}`);
  const id: string = response.body.data.operation_id;
  while (Date.now() < deadline) {
    const { body } = await api.get(`/operations/${id}`);
    if (body.data.status === 'confirmed') return { ms: elapsed(), settled: true };
    if (body.data.status === 'failed') throw new Error(`B's mint failed: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { ms: elapsed(), settled: false };
}

if (require.main === module) {
  run().then(
    (result) => {
      console.log(
        `Account B's synchronous NFT mints while account A floods ${result.floodMints} async mints ` +
          `(${result.workers} worker(s), ${result.chain} chain), latencies in ms:`,
      );
      console.table(result);
      const bound = result.floodUnfinished ? ' (at least: some B mints were cut short)' : '';
      console.log(
        `slowest B mint during the flood / B's idle p50 = ${result.maxOverIdleP50}${bound} (target <= 3)`,
      );
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
