/**
 * Does one account's airdrop starve another? On one network (`base`) of one service:
 *   1. account B mints NFTs synchronously, one after another, on a quiet service: its idle
 *      latency (p50);
 *   2. account A floods N async mints (`Prefer: respond-async`, 32 in flight) and, once A has a
 *      head start, B mints synchronously again, one after another, while A's flood is pending.
 * B's latency during the flood (p50, p99, the slowest) against its idle p50; target: the slowest
 * <= max(5x idle p50, 300 ms). A B mint still pending when `SYNC_WAIT_MS` ends is followed at
 * GET /operations/{id}, so its latency is the time to confirmation; one still pending when the
 * run's time limit ends counts with the time it had waited (a lower bound, reported as such).
 * A's throughput: its mints confirmed a second, from its first request to its last confirmation.
 * Each mode of BENCH_FAIRNESS_MODES (`fixed,adaptive`: WORKER_ADAPTIVE_CONCURRENCY off, then on)
 * runs on a fresh stack; A's throughput adaptive / fixed is the cost of the shorter queues
 * (target >= 0.9).
 * With one worker it also prints the worker's queues during B's part (workerQueues: the mean
 * wait for a pooled connection in each lane, and the event loop's longest delay).
 * Run: npm run bench:fairness   (BENCH_FLOOD_MINTS=10000, BENCH_IDLE_MINTS=20,
 *   BENCH_FLOOD_SAMPLE_MINTS=1000 B mints at most during the flood, BENCH_FLOOD_HEAD_START=500,
 *   BENCH_TIME_LIMIT_S=120 for B's part of the flood, BENCH_WORKERS=1, BENCH_QUEUE_SHARDS=1;
 *   BENCH_SERVICE_ENV='{"WORKER_CONCURRENCY":"32"}' sets the service's variables, to map what
 *   a fixed limit does; the chain: see benchChain)
 */
import { queryDatabase } from '@test/support/chain-reads';
import { HttpClient } from '@test/support/http-client';
import { sample } from '@test/support/prometheus-text';
import { freePort } from '@test/support/service-process';
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
const MODES = ['fixed', 'adaptive'] as const;
type Mode = (typeof MODES)[number];

export interface FairnessResult {
  chain: string;
  mode: Mode;
  workers: number;
  floodMints: number;
  floodAccepted: number;
  floodConfirmedAtEnd: number;
  /** A's mints confirmed a second, its first request to its last confirmation. */
  floodMintsPerSecond: number;
  idleMints: number;
  idleP50: number;
  floodSampleMints: number;
  floodP50: number;
  floodP99: number;
  floodMax: number;
  /** B mints the time limit cut short: their waits are lower bounds. */
  floodUnfinished: number;
  /** A's mints accepted a second, from its first request to its last 202. */
  floodAcceptedPerSecond: number;
  /** B's p50 and slowest while A's requests were still coming in, then while they drained. */
  whilePosting: string;
  whileDraining: string;
  /** Where B's mints during the flood spent their time, from Postgres: see phasesOf. */
  phasesB: string;
  /** The worker's queues during B's part of the flood, from its metrics: see workerQueues. */
  workerQueues: string;
  /** A's slowest mint, request row to settlement, and where it waited: see slowestOf. */
  slowestA: string;
  maxOverIdleP50: number;
  /** max(5x idle p50, 300 ms): the slowest B mint's target. */
  maxTargetMs: number;
}

interface Timed {
  ms: number;
  settled: boolean;
  operationId: string;
  /** When the request went out and its answer (or the settled status) came back (epoch ms). */
  sentAt: number;
  answeredAt: number;
  /** Sent while A was still sending its mints (else while they only drained). */
  whilePosting?: boolean;
}

/** Each mode of BENCH_FAIRNESS_MODES in turn, each on a fresh stack and chain. */
export async function run(
  floodMints = intFromEnv('BENCH_FLOOD_MINTS', 10_000),
): Promise<FairnessResult[]> {
  const modes = (process.env.BENCH_FAIRNESS_MODES ?? MODES.join(',')).split(',');
  const results: FairnessResult[] = [];
  for (const mode of modes) {
    if (!MODES.includes(mode as Mode)) throw new Error(`BENCH_FAIRNESS_MODES: no mode ${mode}`);
    results.push(await runMode(floodMints, mode as Mode));
  }
  return results;
}

async function runMode(floodMints: number, mode: Mode): Promise<FairnessResult> {
  const chain = benchChain();
  const workers = intFromEnv('BENCH_WORKERS', 1);
  // One worker's metrics: more would need a port each.
  const metricsPort = workers === 1 ? await freePort() : undefined;
  const stack = await startServiceStack({
    workers,
    chains: chain.options,
    env: {
      WORKER_ADAPTIVE_CONCURRENCY: String(mode === 'adaptive'),
      RATE_LIMIT_REQUESTS: '1000000',
      // One shard by default: A's and B's wallets meet on one queue (the case the scheduler is
      // for; with more shards they may not, whatever the scheduler does).
      QUEUE_SHARDS: String(intFromEnv('BENCH_QUEUE_SHARDS', 1)),
      ...serviceEnvFromBench(),
    },
    workerEnv: metricsPort ? { WORKER_METRICS_PORT: String(metricsPort) } : undefined,
  });
  const workerMetrics = async () =>
    metricsPort
      ? String((await new HttpClient(`http://127.0.0.1:${metricsPort}`).get('/metrics')).body)
      : undefined;
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
    let lastAcceptedAt = 0;
    let floodError: Error | undefined;
    const floodStarted = performance.now();
    const flood = runConcurrently(floodMints, FLOOD_CLIENTS, async (i) => {
      if (stopFlood) return;
      const response = await a.api.post(
        `/nfts/${collectionA}/mint`,
        { name: `Flood ${i}`, images: [IMAGE] },
        { prefer: 'respond-async' },
      );
      if (response.status !== 202) throw new Error(`flood mint: ${response.status}`);
      accepted++;
      lastAcceptedAt = performance.now();
    }).catch((error: unknown) => {
      floodError = error instanceof Error ? error : new Error(`flood: ${JSON.stringify(error)}`);
    });
    const headStart = Math.min(floodMints, intFromEnv('BENCH_FLOOD_HEAD_START', 500));
    while (accepted < headStart && !floodError) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const metricsBefore = await workerMetrics();
    const walletA = evmWalletOf(a.account);
    const deadline = Date.now() + intFromEnv('BENCH_TIME_LIMIT_S', 120) * 1000;
    const sampleSize = intFromEnv('BENCH_FLOOD_SAMPLE_MINTS', 1_000);
    const during: Timed[] = [];
    let floodPending = true;
    while (during.length < sampleSize && floodPending && !floodError && Date.now() < deadline) {
      const whilePosting = accepted < floodMints;
      during.push({ ...(await mintB(`during ${during.length}`, deadline)), whilePosting });
      const countsA = await operationCounts(stack.env.DATABASE_URL, 'nft.mint', walletA);
      floodPending = accepted < floodMints || countsA.pending > 0;
    }
    stopFlood = true;
    await flood;
    if (floodError) throw floodError;
    let countsA = await operationCounts(stack.env.DATABASE_URL, 'nft.mint', walletA);
    while (countsA.pending > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      countsA = await operationCounts(stack.env.DATABASE_URL, 'nft.mint', walletA);
    }
    const floodSeconds = (performance.now() - floodStarted) / 1000;
    const metricsAfter = await workerMetrics();

    const phasesB = await phasesOf(stack.env.DATABASE_URL, during);
    const slowestA = await slowestOf(stack.env.DATABASE_URL, walletA);
    const idleP50 = percentile(times(idle), 50);
    const floodMax = Math.max(...times(during));
    return {
      chain: chain.name,
      mode,
      workers,
      floodMints,
      floodAccepted: accepted,
      floodConfirmedAtEnd: countsA.confirmed,
      floodMintsPerSecond: round(countsA.confirmed / floodSeconds, 1),
      floodAcceptedPerSecond: round((accepted * 1000) / (lastAcceptedAt - floodStarted), 1),
      idleMints: idle.length,
      idleP50: round(idleP50),
      floodSampleMints: during.length,
      floodP50: round(percentile(times(during), 50)),
      floodP99: round(percentile(times(during), 99)),
      floodMax: round(floodMax),
      floodUnfinished: during.filter((t) => !t.settled).length,
      whilePosting: spread(during.filter((t) => t.whilePosting)),
      whileDraining: spread(during.filter((t) => !t.whilePosting)),
      phasesB,
      workerQueues: workerQueues(metricsBefore, metricsAfter),
      slowestA,
      maxOverIdleP50: round(floodMax / idleP50, 1),
      maxTargetMs: round(Math.max(5 * idleP50, 300)),
    };
  } finally {
    await stack.stop();
  }
}

/** BENCH_SERVICE_ENV, a JSON object of the service's environment variables (none by default). */
function serviceEnvFromBench(): Record<string, string> {
  const env: unknown = JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}');
  if (typeof env !== 'object' || env === null || Array.isArray(env)) {
    throw new Error(
      'BENCH_SERVICE_ENV: a JSON object of variables, e.g. {"WORKER_CONCURRENCY":"32"}',
    );
  }
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, String(value)]));
}

/**
 * Between two scrapes of the worker's metrics: the mean wait for a pooled Postgres connection in
 * each lane ('first': an account's first pending operations, B's; 'fair': the rest, A's) and the
 * longest any callback waited for the worker's event loop.
 */
function workerQueues(before?: string, after?: string): string {
  if (!before || !after) return 'n/a';
  const delta = (name: string, labels: Record<string, string>) =>
    sample(after, name, labels) - sample(before, name, labels);
  const poolWait = (lane: string) => {
    const count = delta('ais_database_pool_wait_seconds_count', { lane });
    const ms = (delta('ais_database_pool_wait_seconds_sum', { lane }) * 1000) / count;
    return `${lane} ${count ? round(ms, 1) : 'n/a'} ms (${count})`;
  };
  const loopMax = round(sample(after, 'nodejs_eventloop_lag_max_seconds') * 1000);
  return `pool wait mean ${poolWait('first')}, ${poolWait('fair')}; event loop delay max ${loopMax} ms`;
}

function times(timed: Timed[]): number[] {
  return timed.map((t) => t.ms);
}

/** `n mints, p50 x, max y` (ms), or `none`. */
function spread(timed: Timed[]): string {
  if (timed.length === 0) return 'none';
  const ms = times(timed);
  return `${ms.length} mints, p50 ${round(percentile(ms, 50))}, max ${round(Math.max(...ms))}`;
}

/**
 * Where B's mints spent their time (p50 and slowest, ms), from their rows: the request until its
 * row (the API), the row until its first signed transaction (a job slot, planning, signing), that
 * until the settling write (sending, the receipt, the write's start) and from there until the
 * answer reached the client (the write, the news, the API).
 */
async function phasesOf(databaseUrl: string, mints: Timed[]): Promise<string> {
  const read = await queryDatabase<{
    id: string;
    created: Date;
    signed: Date | null;
    settled: Date;
  }>(
    databaseUrl,
    `SELECT o.id, o.created_at AS created, o.settled_at AS settled,
            (SELECT min(t.created_at)
               FROM operation_transactions ot JOIN transactions t USING (chain_key, tx_hash)
              WHERE ot.operation_id = o.id) AS signed
       FROM operations o
      WHERE o.id = ANY($1::uuid[]) AND o.settled_at IS NOT NULL`,
    [mints.map((mint) => mint.operationId)],
  );
  // A mint that failed before it was signed has no phases past its row.
  const rows = read.flatMap((row) => (row.signed ? [{ ...row, signed: row.signed }] : []));
  if (rows.length === 0) return 'none';
  const byId = new Map(mints.map((mint) => [mint.operationId, mint]));
  const phase = (name: string, ms: (row: (typeof rows)[number], mint: Timed) => number) => {
    const values = rows.map((row) => ms(row, byId.get(row.id)!));
    return `${name} p50 ${round(percentile(values, 50))} max ${round(Math.max(...values))}`;
  };
  return [
    phase('to row', (row, mint) => row.created.getTime() - mint.sentAt),
    phase('to signed', (row) => row.signed.getTime() - row.created.getTime()),
    phase('to settling', (row) => row.settled.getTime() - row.signed.getTime()),
    phase('to answer', (row, mint) => mint.answeredAt - row.settled.getTime()),
  ].join('; ');
}

/**
 * The slowest mint of a wallet, its row to its settlement: how long it took to be signed, and
 * from its first signing to its settlement, and its runs that failed (attempts). A's throughput
 * is its mints over the time to its last one: a mint left behind lowers it alone.
 */
async function slowestOf(databaseUrl: string, signer: string): Promise<string> {
  const [row] = await queryDatabase<{ total: number; signed: number | null; attempts: number }>(
    databaseUrl,
    `SELECT extract(epoch FROM o.settled_at - o.created_at) * 1000 AS total,
            extract(epoch FROM s.first - o.created_at) * 1000 AS signed, o.attempts
       FROM operations o
       LEFT JOIN LATERAL (
         SELECT min(t.created_at) AS first
           FROM operation_transactions ot JOIN transactions t USING (chain_key, tx_hash)
          WHERE ot.operation_id = o.id) s ON true
      WHERE o.kind = 'nft.mint' AND lower(o.signer) = lower($1) AND o.settled_at IS NOT NULL
      ORDER BY o.settled_at - o.created_at DESC LIMIT 1`,
    [signer],
  );
  if (!row) return 'none';
  const total = Number(row.total);
  const signed = row.signed === null ? null : Number(row.signed);
  return signed === null
    ? `${round(total)} ms, never signed, ${row.attempts} failed runs`
    : `${round(total)} ms: to signed ${round(signed)}, to settled ${round(total - signed)}, ` +
        `${row.attempts} failed runs`;
}

/** A synchronous mint's time to confirmation, following the operation past SYNC_WAIT_MS. */
async function syncMint(
  api: HttpClient,
  collection: string,
  name: string,
  deadline: number,
): Promise<Timed> {
  const started = performance.now();
  const sentAt = Date.now();
  const timed = (operationId: string, settled: boolean): Timed => ({
    ms: performance.now() - started,
    settled,
    operationId,
    sentAt,
    answeredAt: Date.now(),
  });
  const response = await api.post(`/nfts/${collection}/mint`, { name, images: [IMAGE] });
  const id: string | undefined = response.body?.data?.operation_id;
  if (!id || (response.status !== 200 && response.status !== 202)) {
    throw new Error(`B's mint: ${response.status} ${JSON.stringify(response.body)}`);
  }
  if (response.status === 200 && response.body.data.status === 'confirmed') return timed(id, true);
  while (Date.now() < deadline) {
    const { body } = await api.get(`/operations/${id}`);
    if (body.data.status === 'confirmed') return timed(id, true);
    if (body.data.status === 'failed') throw new Error(`B's mint failed: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return timed(id, false);
}

if (require.main === module) {
  run().then(
    (results) => {
      const [first] = results;
      console.log(
        `Account B's synchronous NFT mints while account A floods ${first.floodMints} async mints ` +
          `(${first.workers} worker(s), ${first.chain} chain), latencies in ms:`,
      );
      console.table(results);
      for (const result of results) {
        const bound = result.floodUnfinished ? ' (at least: some B mints were cut short)' : '';
        console.log(
          `${result.mode}: slowest B mint during the flood ${result.floodMax} ms${bound}, ` +
            `${result.maxOverIdleP50}x B's idle p50 (target <= ${result.maxTargetMs} ms: ` +
            `${result.floodMax <= result.maxTargetMs ? 'met' : 'not met'})`,
        );
      }
      const fixed = results.find((r) => r.mode === 'fixed');
      const adaptive = results.find((r) => r.mode === 'adaptive');
      if (fixed && adaptive) {
        const ratio = adaptive.floodMintsPerSecond / fixed.floodMintsPerSecond;
        console.log(
          `A's throughput adaptive / fixed = ${round(ratio, 2)} (target >= 0.9: ` +
            `${ratio >= 0.9 ? 'met' : 'not met'})`,
        );
      }
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
