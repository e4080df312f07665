/**
 * Do worker processes add up? NFT mints/s of many accounts at once on a realistic chain (1 s EVM
 * blocks, 30 ms RPC round trip: throughput is bounded by pipelining, not by the chain), in one
 * run, each on a fresh chain with the same flags:
 *   (a) raw: as many wallets as the service has accounts, each minting its share into its own
 *       ERC-721 with pre-signed, explicit-nonce transactions sent in nonce order, each send
 *       waiting for the node's answer but not for a receipt (as in bench:evm), all wallets at
 *       once, until every wallet's mined nonce has caught up; `BENCH_RAW_SEND_BATCH=100` sends
 *       ordered JSON-RPC batches instead (a stronger baseline, about one block for all);
 *   (b) the service with 1, 2 and 3 worker processes: every account submits its share of async
 *       mints (`Prefer: respond-async`, a few in flight per account), until the database says
 *       they have all settled.
 * Ratios: 2 workers / 1 worker (target >= 1.6), the best service run / raw (target >= 0.8), and
 * the workers' CPU a mint with the most workers / with 1 (issue 27: target <= 1.15). Each run
 * also gives CPU ms a mint by process kind, and the workers' user, system and main-thread CPU
 * and context switches a mint. Each service run mints BENCH_WARMUP_MINTS (600) first, unmeasured,
 * as a deployment that has run a while (V8 compiles a process's code in its first seconds).
 * BENCH_RATE=<mints/s> submits at that pace instead of as fast as accepted, for figures on a
 * machine that is not saturated. Work counts a mint, to tell more work from dearer work:
 * BENCH_RPC_CALLS=1 (EVM JSON-RPC calls by method, through a recording proxy) and
 * BENCH_PG_STATEMENTS=1 (the most called statements, on a Postgres of the bench's own with
 * pg_stat_statements).
 * Run: npm run bench:scaling   (BENCH_SCALING_MINTS=1200, BENCH_ACCOUNTS=12,
 *   BENCH_CLIENTS_PER_ACCOUNT=8, BENCH_WORKER_COUNTS=1,2,3, BENCH_TIME_LIMIT_S=180 per run,
 *   BENCH_QUEUE_SHARDS=12 with the workers pinned to base;
 *   BENCH_EVM_BLOCK_TIME, BENCH_RPC_LATENCY_MS, BENCH_CHAIN=quiet: see benchChain)
 */
import {
  JsonRpcProvider,
  Wallet,
  parseEther,
  toBeHex,
  type Contract,
  type HDNodeWallet,
} from 'ethers';
import Redis from 'ioredis';
import { Client } from 'pg';
import { startOwnPostgres } from '@test/support/own-postgres';
import { startLocalChains, type LocalChainsOptions } from '@app/localnet';
import { newAccountClient, startServiceStack } from '@test/support/service-stack';
import {
  benchChain,
  deployCollection,
  IMAGE,
  intFromEnv,
  operationCounts,
  RAW_PROVIDER_OPTIONS,
  serviceCollection,
  rawMintSigner,
} from './evm-helpers';
import { countersSince, processCounters, type ProcessCounters } from './process-counters';
import { mostCalledStatements, resetStatements } from './pg-statements';
import { cpuSummary, cpuWindow, type CpuUsage } from './cpu-usage';
import { LoadClient } from './load-client';
import { callsPerMint, round, runConcurrently } from './stats';

export interface ScalingRun {
  run: string;
  mints: number;
  seconds: number;
  mintsPerSecond: number;
  /** Service: how long the API took to accept every mint (202). */
  submitSeconds?: number;
  failed: number;
  /** This run's rate over the raw script's. */
  ratioToRaw?: number;
  /** Mints not settled when the run's time limit ended it (the rate then counts settled ones). */
  unsettled: number;
  /** Where the CPU went while it ran (see cpu-usage.ts): is the machine the limit? */
  cpu: string;
  /** CPU milliseconds a mint by process kind (all workers together as `worker`). */
  cpuMsPerMint: Record<string, number>;
  /** Service runs: the workers' CPU a mint by mode and thread, and their context switches. */
  workers?: {
    userMsPerMint: number;
    systemMsPerMint: number;
    mainThreadMsPerMint: number;
    contextSwitchesPerMint: number;
  };
  /** BENCH_RPC_CALLS=1: the service's EVM JSON-RPC calls a mint, by method. */
  rpcCallsPerMint?: Record<string, number>;
  /** BENCH_PG_STATEMENTS=1: the most called Postgres statements, calls a mint. */
  statementsPerMint?: { query: string; perMint: number }[];
}

const WORKER_COMMAND = /apps\/worker\//;

export interface ScalingResult {
  chain: string;
  accounts: number;
  runs: ScalingRun[];
  twoWorkersOverOne: number;
  serviceOverRaw: number;
  /** Workers' CPU a mint with the most workers run, over that with one. */
  workerCpuMostOverOne: number;
}

export async function run(
  mints = intFromEnv('BENCH_SCALING_MINTS', 1200),
  accounts = intFromEnv('BENCH_ACCOUNTS', 12),
): Promise<ScalingResult> {
  const chain = benchChain();
  const workerCounts = (process.env.BENCH_WORKER_COUNTS ?? '1,2,3').split(',').map(Number);
  const limitMs = intFromEnv('BENCH_TIME_LIMIT_S', 180) * 1000;
  const runs = [await rawMints(chain.options, mints, accounts, limitMs)];
  for (const workers of workerCounts) {
    runs.push(await serviceMints(chain.options, mints, accounts, workers, limitMs));
  }
  for (const r of runs.slice(1)) r.ratioToRaw = round(r.mintsPerSecond / runs[0].mintsPerSecond, 2);
  const rate = (name: string) => runs.find((r) => r.run === name)?.mintsPerSecond ?? NaN;
  const best = Math.max(...runs.slice(1).map((r) => r.mintsPerSecond));
  const workerCpu = (r: ScalingRun | undefined) => r?.cpuMsPerMint.worker ?? NaN;
  const most = `service, ${Math.max(...workerCounts)} worker`;
  return {
    chain: chain.name,
    accounts,
    runs,
    twoWorkersOverOne: round(rate('service, 2 workers') / rate('service, 1 worker'), 2),
    serviceOverRaw: round(best / rate('raw'), 2),
    workerCpuMostOverOne: round(
      workerCpu(runs.find((r) => r.run.startsWith(most))) /
        workerCpu(runs.find((r) => r.run === 'service, 1 worker')),
      2,
    ),
  };
}

/** CPU milliseconds a mint by process kind. */
function msPerMint(usage: CpuUsage, mints: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(usage.seconds).map(([kind, seconds]) => [
      kind,
      round((seconds * 1000) / mints, 2),
    ]),
  );
}

/** Splits `total` into `parts` shares that differ by at most one. */
function shares(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor((total + i) / parts));
}

async function rawMints(
  chainOptions: LocalChainsOptions,
  mints: number,
  wallets: number,
  limitMs: number,
): Promise<ScalingRun> {
  const chains = await startLocalChains({
    ...chainOptions,
    evmPort: 0,
    solanaPort: 0,
    solanaWsPort: 0,
  });
  const provider = new JsonRpcProvider(chains.evmRpcUrl, undefined, RAW_PROVIDER_OPTIONS);
  try {
    const minters = await Promise.all(
      shares(mints, wallets).map(async (count) => {
        const wallet = Wallet.createRandom(provider);
        await provider.send('anvil_setBalance', [wallet.address, toBeHex(parseEther('100'))]);
        const collection = await deployCollection(wallet);
        return { wallet, collection, count, signed: await signMints(wallet, collection, count) };
      }),
    );

    const started = performance.now();
    const cpu = cpuWindow();
    const deadline = Date.now() + limitMs;
    const batch = intFromEnv('BENCH_RAW_SEND_BATCH', 1);
    // Every wallet at once; each sends in nonce order, without waiting for blocks.
    await Promise.all(
      minters.map(async ({ signed }) => {
        for (let i = 0; i < signed.txs.length; i += batch) {
          await sendBatch(chains.evmRpcUrl, signed.txs.slice(i, i + batch));
        }
      }),
    );
    const mined = await Promise.all(
      minters.map(({ wallet, signed }) =>
        waitForNonce(provider, wallet.address, signed.firstNonce + signed.txs.length, deadline),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const usage = cpu.stop();
    const minedMints = mined.reduce(
      (sum, nonce, i) => sum + nonce - minters[i].signed.firstNonce,
      0,
    );
    // Every mined mint must have minted: a reverted one would not add to the wallet's balance.
    const held = await Promise.all(
      minters.map(
        ({ wallet, collection }) => collection.balanceOf(wallet.address) as Promise<bigint>,
      ),
    );
    const minted = held.reduce((sum, balance) => sum + Number(balance), 0);
    return {
      run: 'raw',
      mints,
      seconds: round(seconds),
      mintsPerSecond: round(minted / seconds),
      failed: minedMints - minted,
      unsettled: mints - minedMints,
      cpu: cpuSummary(usage),
      cpuMsPerMint: msPerMint(usage, mints),
    };
  } finally {
    provider.destroy();
    await chains.stop();
  }
}

async function signMints(
  wallet: HDNodeWallet,
  collection: Contract,
  count: number,
): Promise<{ firstNonce: number; txs: string[] }> {
  const { firstNonce, sign } = await rawMintSigner(wallet, collection, 20);
  const txs = await Promise.all(Array.from({ length: count }, (_, i) => sign(firstNonce + i)));
  return { firstNonce, txs };
}

async function sendBatch(url: string, txs: string[]): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      txs.map((tx, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [tx] })),
    ),
  });
  const replies = (await response.json()) as { error?: { message: string } }[];
  const refused = replies.find((reply) => reply.error);
  if (refused) throw new Error(`raw send refused: ${refused.error!.message}`);
}

/** Polls the wallet's mined nonce until it reaches `target` or the deadline; returns the last seen. */
async function waitForNonce(
  provider: JsonRpcProvider,
  address: string,
  target: number,
  deadline: number,
): Promise<number> {
  for (;;) {
    const nonce = await provider.getTransactionCount(address, 'latest');
    if (nonce >= target || Date.now() > deadline) return nonce;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function serviceMints(
  chainOptions: LocalChainsOptions,
  mints: number,
  accounts: number,
  workers: number,
  limitMs: number,
): Promise<ScalingRun> {
  const shardCount = intFromEnv('BENCH_QUEUE_SHARDS', 12);
  const ownPostgres =
    process.env.BENCH_PG_STATEMENTS === '1'
      ? await startOwnPostgres({ shared_preload_libraries: 'pg_stat_statements' })
      : undefined;
  const stack = await startServiceStack({
    postgresUrl: ownPostgres?.url,
    workers,
    chains: chainOptions,
    env: {
      RATE_LIMIT_REQUESTS: '1000000',
      REGISTER_LIMIT_PER_IP: '1000/3600',
      // Enough shards that 1, 2 and 3 workers split the wallets evenly (12 = 4 x 3).
      QUEUE_SHARDS: String(shardCount),
      // The production default: the test stacks' 500 ms (for quick recovery in fault tests)
      // would charge each worker ten reconciler runs a second-and-a-half more than deployed.
      RECONCILE_INTERVAL_MS: '5000',
    },
    // Workers pinned to the one network minted on, as a deployment with many shards would be.
    workerEnv: { WORKER_NETWORKS: 'base' },
    evmRecorder: process.env.BENCH_RPC_CALLS === '1',
  }).catch(async (error: unknown) => {
    await ownPostgres?.stop();
    throw error;
  });
  const db = new Client({ connectionString: stack.env.DATABASE_URL });
  try {
    await db.connect();
    const perAccount = intFromEnv('BENCH_CLIENTS_PER_ACCOUNT', 8);
    await shardsSplit(stack.env, workers, shardCount);
    const minters = await Promise.all(
      Array.from({ length: accounts }, async () => {
        const { api, key } = await newAccountClient(stack.http);
        return { key, collection: await serviceCollection(api) };
      }),
    );
    // A warm-up first, as a long-running deployment is: a worker's first seconds go to V8
    // compiling its code, paid once a process, which a short run would charge to every mint.
    const warmUp = await mintAndSettle(stack, minters, {
      total: intFromEnv('BENCH_WARMUP_MINTS', 600),
      perAccount,
      deadline: Date.now() + limitMs,
    });
    const statementsCounted = await resetStatements(db);
    const callsBefore = stack.evmRecorder?.calls().length ?? 0;
    const started = performance.now();
    const cpu = cpuWindow();
    const workerCountersBefore = processCounters(WORKER_COMMAND);
    const { submitSeconds, counts } = await mintAndSettle(stack, minters, {
      total: mints,
      perAccount,
      deadline: Date.now() + limitMs,
      perSecond: process.env.BENCH_RATE ? intFromEnv('BENCH_RATE', 1) : undefined,
    });
    const seconds = (performance.now() - started) / 1000;
    const usage = cpu.stop();
    const workerCounters = countersSince(workerCountersBefore, processCounters(WORKER_COMMAND));
    const database = new URL(stack.env.DATABASE_URL).pathname.slice(1);
    return {
      run: `service, ${workers} worker${workers === 1 ? '' : 's'}`,
      mints,
      seconds: round(seconds),
      mintsPerSecond: round((counts.confirmed - warmUp.counts.confirmed) / seconds),
      submitSeconds: round(submitSeconds),
      failed: counts.failed - warmUp.counts.failed,
      unsettled: counts.pending,
      cpu: cpuSummary(usage),
      cpuMsPerMint: msPerMint(usage, mints),
      workers: workerDetail(workerCounters, mints),
      rpcCallsPerMint: stack.evmRecorder
        ? callsPerMint(stack.evmRecorder.calls().slice(callsBefore), mints)
        : undefined,
      statementsPerMint: statementsCounted
        ? (await mostCalledStatements(db, database, 25)).map(({ query, calls }) => ({
            query,
            perMint: round(calls / mints, 3),
          }))
        : undefined,
    };
  } finally {
    await db.end();
    await stack.stop();
    await ownPostgres?.stop();
  }
}

/** The workers' CPU a mint split by mode and thread, and their context switches a mint. */
function workerDetail(counters: ProcessCounters, mints: number): ScalingRun['workers'] {
  const msPerMint = (seconds: number) => round((seconds * 1000) / mints, 2);
  return {
    userMsPerMint: msPerMint(counters.userSeconds),
    systemMsPerMint: msPerMint(counters.systemSeconds),
    mainThreadMsPerMint: msPerMint(counters.mainThreadSeconds),
    contextSwitchesPerMint: round(counters.contextSwitches / mints, 1),
  };
}

/** JSON-RPC calls a mint by method. */
/**
 * Every account submits its share of `total` async mints, `perAccount` at a time or, with
 * `perSecond`, at that pace whatever the answers' (the machine then not saturated), and waits
 * until the database says all of the stack's mints have settled, or the deadline has passed.
 */
async function mintAndSettle(
  stack: { http: { baseUrl: string }; env: Record<string, string> },
  minters: { key: string; collection: string }[],
  load: { total: number; perAccount: number; deadline: number; perSecond?: number },
): Promise<{ submitSeconds: number; counts: Awaited<ReturnType<typeof operationCounts>> }> {
  const started = performance.now();
  let refused = 0;
  await Promise.all(
    shares(load.total, minters.length).map(async (count, i) => {
      const { key, collection } = minters[i];
      const client = new LoadClient(stack.http.baseUrl, { 'api-key': key }, load.perAccount);
      const mint = async (n: number) => {
        const response = await client.post(
          `/nfts/${collection}/mint`,
          { name: `Bench ${n}`, images: [IMAGE] },
          { prefer: 'respond-async' },
        );
        if (response.status !== 202) refused++;
      };
      try {
        if (load.perSecond) await paced(count, load.perSecond / minters.length, mint);
        else await runConcurrently(count, load.perAccount, mint);
      } finally {
        client.close();
      }
    }),
  );
  if (refused) throw new Error(`${refused} mints were not accepted (202)`);
  const submitSeconds = (performance.now() - started) / 1000;
  let counts = await operationCounts(stack.env.DATABASE_URL, 'nft.mint');
  while (counts.pending > 0 && Date.now() < load.deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    counts = await operationCounts(stack.env.DATABASE_URL, 'nft.mint');
  }
  return { submitSeconds, counts };
}

/** Runs `count` calls of `task`, started `perSecond` a second whatever their answers' pace. */
async function paced(
  count: number,
  perSecond: number,
  task: (n: number) => Promise<void>,
): Promise<void> {
  const started = performance.now();
  const running: Promise<void>[] = [];
  for (let n = 0; n < count; n++) {
    const due = started + (n * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    running.push(task(n));
  }
  await Promise.all(running);
}

/**
 * Waits until each worker holds its share of base's shards (the lease keys in Redis): workers
 * started together split them within a lease renewal or two, and the clock measures them split,
 * not the hand-over (which the shard-leases integration tests time).
 */
async function shardsSplit(
  env: Record<string, string>,
  workers: number,
  shards: number,
): Promise<void> {
  const redis = new Redis(env.REDIS_URL);
  try {
    const keys = Array.from(
      { length: shards },
      (_, shard) => `${env.QUEUE_PREFIX}:lease:{base}:${shard}`,
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const owners = await redis.mget(...keys);
      const perWorker = new Map<string, number>();
      for (const owner of owners) if (owner) perWorker.set(owner, (perWorker.get(owner) ?? 0) + 1);
      const most = Math.max(0, ...perWorker.values());
      if (perWorker.size === workers && most <= Math.ceil(shards / workers)) return;
      if (Date.now() > deadline)
        throw new Error(`shards not split: ${JSON.stringify([...perWorker])}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    redis.disconnect();
  }
}

function printRunDetail(run: ScalingRun): void {
  const byKind = Object.entries(run.cpuMsPerMint)
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${ms}`)
    .join(', ');
  console.log(`${run.run}: CPU ms a mint: ${byKind}`);
  if (run.workers) {
    const w = run.workers;
    console.log(
      `${run.run}: workers a mint: user ${w.userMsPerMint} ms, system ${w.systemMsPerMint} ms, ` +
        `main threads ${w.mainThreadMsPerMint} ms, ${w.contextSwitchesPerMint} context switches`,
    );
  }
  if (run.rpcCallsPerMint) {
    console.log(`${run.run}: EVM RPC calls a mint: ${JSON.stringify(run.rpcCallsPerMint)}`);
  }
  for (const { query, perMint } of run.statementsPerMint ?? []) {
    console.log(`${run.run}: ${String(perMint).padStart(6)} a mint: ${query}`);
  }
}

if (require.main === module) {
  run().then(
    (result) => {
      console.log(`NFT mints of ${result.accounts} accounts at once on a ${result.chain} chain:`);
      console.table(
        result.runs.map(
          ({ cpuMsPerMint: _c, workers: _w, rpcCallsPerMint: _r, statementsPerMint: _s, ...run }) =>
            run,
        ),
      );
      for (const run of result.runs) printRunDetail(run);
      console.log(
        `workers' CPU a mint, most workers / 1 worker = ${result.workerCpuMostOverOne} (target <= 1.15)`,
      );
      console.log(`2 workers / 1 worker = ${result.twoWorkersOverOne} (target >= 1.6)`);
      console.log(`service (best) / raw = ${result.serviceOverRaw} (target >= 0.8)`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
