/**
 * What one synchronous NFT mint costs the service, per family: the CPU of its own processes (the
 * API, the worker, the Postgres backends of its database with the cluster's WAL writer and
 * checkpointer, Redis), and what Postgres does for it (transactions, rows written, statements
 * when pg_stat_statements is loaded, WAL bytes). BENCH_IN_FLIGHT (32) mints in flight through
 * one account, on fresh local chains as the tests run them (automine, no latency), after a
 * warm-up. The chains and the load generator (this process) are counted apart. Target (issue
 * 25): at most 5 ms of CPU a mint in the service's processes.
 *
 * The figure is a running service's: the first BENCH_WARMUP_MINTS (3,000) of fresh processes are
 * counted apart (`coldServiceCpuMsPerMint`). In a process's first minute V8 is still compiling
 * its code, on threads of its own and into slower code until then: in a perf profile over mints
 * 1,000-4,000 its optimizing compiler took 22% of the API's CPU and 15% of the worker's, and 6%
 * and 4% over mints 7,000-9,000, where the service's CPU a mint had settled (11.9, 13.4, 11.0,
 * 8.5, 7.2, 6.4 and 6.4 ms over seven windows of 1,000 mints one run; 2026-11-29). anvil's cost
 * a block grows with its chain over the warm-up: the chains are counted apart.
 *
 * WAL bytes are the cluster's (`pg_current_wal_lsn`), and Redis and the shared Postgres
 * processes are the machine's: on a machine where nothing else runs, they are this run's.
 * Run: npm run bench:mint-cost   (BENCH_MINTS=1500 a family, BENCH_WARMUP_MINTS=3000, BENCH_IN_FLIGHT=32,
 *   BENCH_MINT_FAMILIES=evm,solana; BENCH_PG_STATEMENTS=1 runs on a Postgres of its own that
 *   preloads pg_stat_statements, to count statements, as `npm run capacity` does;
 *   BENCH_WAL_BY_RELATION=1 prints where the WAL went, by table and index, from pg_walinspect:
 *   its BENCH_WAL_TOP=20 largest shares; BENCH_IDEMPOTENCY_KEYS=1 sends each mint with an
 *   Idempotency-Key of its own, as a careful client does)
 */
import { Client } from 'pg';
import { startOwnPostgres } from '@test/support/own-postgres';
import { newAccountClient, startServiceStack } from '@test/support/service-stack';
import { IMAGE, intFromEnv, serviceCollection } from './evm-helpers';
import { LoadClient } from './load-client';
import { statementCount } from './pg-statements';
import { walByRelation, type WalShare } from './wal-by-relation';
import { stackCpuWindow } from './stack-cpu';
import { round, runConcurrently } from './stats';

type Family = 'evm' | 'solana';
const NETWORK: Record<Family, string> = { evm: 'base', solana: 'solana' };
const TARGET_MS = 5;
/** Processes that are the service's; everything else is the chains', the bench's or noise. */
const SERVICE_KINDS = ['api', 'worker', 'postgres', 'postgres (shared)', 'redis (shared)'];

export interface MintCost {
  family: Family;
  mints: number;
  mintsPerSecond: number;
  /** CPU milliseconds a mint, by process kind (stack-cpu.ts), and the service's total. */
  cpuMsPerMint: Record<string, number>;
  serviceCpuMsPerMint: number;
  /** The same over the warm-up: the first mints of fresh processes, V8 compiling their code. */
  coldServiceCpuMsPerMint: number;
  transactionsPerMint: number;
  rowsWrittenPerMint: number;
  /** null when pg_stat_statements is not loaded. */
  statementsPerMint: number | null;
  walBytesPerMint: number;
  /** With BENCH_WAL_BY_RELATION=1: the largest shares of that WAL, bytes a mint. */
  walByRelation?: WalShare[];
  met: boolean;
}

export async function run(
  mints = intFromEnv('BENCH_MINTS', 1500),
  inFlight = intFromEnv('BENCH_IN_FLIGHT', 32),
  warmUpMints = intFromEnv('BENCH_WARMUP_MINTS', 3000),
): Promise<MintCost[]> {
  const families = (process.env.BENCH_MINT_FAMILIES ?? 'evm,solana')
    .split(',')
    .map((name) => name.trim()) as Family[];
  for (const family of families) {
    if (!(family in NETWORK)) throw new Error(`unknown family ${family}`);
  }
  const results: MintCost[] = [];
  for (const family of families) {
    results.push(await measure(family, mints, inFlight, warmUpMints));
  }
  return results;
}

async function measure(
  family: Family,
  mints: number,
  inFlight: number,
  warmUpMints: number,
): Promise<MintCost> {
  const ownPostgres =
    process.env.BENCH_PG_STATEMENTS === '1'
      ? await startOwnPostgres({ shared_preload_libraries: 'pg_stat_statements' })
      : undefined;
  const stack = await startServiceStack({
    postgresUrl: ownPostgres?.url,
    env: { RATE_LIMIT_REQUESTS: '1000000' },
  }).catch(async (error: unknown) => {
    await ownPostgres?.stop();
    throw error;
  });
  const database = new URL(stack.env.DATABASE_URL).pathname.slice(1);
  const db = new Client({ connectionString: stack.env.DATABASE_URL });
  await db.connect();
  try {
    const { api, key } = await newAccountClient(stack.http);
    const collection = await serviceCollection(api, NETWORK[family]);
    const load = new LoadClient(stack.http.baseUrl, { 'api-key': key }, inFlight);
    const mint = (i: number) => syncMint(load, collection, i);
    const serviceCpu = () =>
      stackCpuWindow({
        api: stack.api.process.pid!,
        workers: stack.workers.map((worker) => worker.process.pid!),
        database,
      });
    const coldCpu = serviceCpu();
    await runConcurrently(warmUpMints, inFlight, mint);
    const coldUsage = coldCpu.stop();

    const before = await postgresCounters(db, database);
    const cpu = serviceCpu();
    const started = performance.now();
    await runConcurrently(mints, inFlight, (i) => mint(warmUpMints + i));
    const seconds = (performance.now() - started) / 1000;
    const usage = cpu.stop();
    load.close();
    const after = await postgresCounters(db, database);
    const walShares =
      process.env.BENCH_WAL_BY_RELATION === '1'
        ? await walByRelation(db, before.walBytes)
        : undefined;

    const cpuMsPerMint: Record<string, number> = {};
    for (const [kind, cpuSeconds] of Object.entries(usage.seconds)) {
      cpuMsPerMint[kind] = round((cpuSeconds * 1000) / mints, 2);
    }
    const serviceMsPerMint = (seconds: Record<string, number>, count: number) =>
      round(SERVICE_KINDS.reduce((sum, kind) => sum + (seconds[kind] ?? 0), 0) * (1000 / count), 2);
    const serviceCpuMsPerMint = serviceMsPerMint(usage.seconds, mints);
    const per = (difference: number) => round(difference / mints, 1);
    return {
      family,
      mints,
      mintsPerSecond: round(mints / seconds),
      cpuMsPerMint,
      serviceCpuMsPerMint,
      coldServiceCpuMsPerMint:
        warmUpMints > 0 ? serviceMsPerMint(coldUsage.seconds, warmUpMints) : Number.NaN,
      transactionsPerMint: per(after.transactions - before.transactions),
      rowsWrittenPerMint: per(after.rowsWritten - before.rowsWritten),
      statementsPerMint:
        after.statements === null || before.statements === null
          ? null
          : per(after.statements - before.statements),
      walBytesPerMint: Math.round(Number(after.walBytes - before.walBytes) / mints),
      walByRelation: walShares?.map((share) => ({ ...share, bytes: per(share.bytes) })),
      met: serviceCpuMsPerMint <= TARGET_MS,
    };
  } finally {
    await db.end().catch(() => undefined);
    await stack.stop();
    await ownPostgres?.stop();
  }
}

const WITH_KEYS = process.env.BENCH_IDEMPOTENCY_KEYS === '1';

/** One synchronous mint: it must answer confirmed. */
async function syncMint(load: LoadClient, collection: string, i: number): Promise<void> {
  const answer = await load.post(
    `/nfts/${collection}/mint`,
    { name: `Cost ${i}`, images: [IMAGE] },
    WITH_KEYS ? { 'idempotency-key': `cost-${collection}-${i}` } : {},
  );
  if (answer.status !== 200 || answer.body.data?.status !== 'confirmed') {
    throw new Error(`mint ${i}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
}

interface PostgresCounters {
  transactions: number;
  rowsWritten: number;
  statements: number | null;
  walBytes: bigint;
}

/**
 * The database's committed transactions and rows written (pg_stat_database), its statements
 * (pg_stat_statements, when loaded), and the cluster's WAL position. Statistics reach the views
 * within a second of a backend going idle (PGSTAT_MIN_INTERVAL): they are read after that.
 */
async function postgresCounters(db: Client, database: string): Promise<PostgresCounters> {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await db.query('SELECT pg_stat_clear_snapshot()');
  const [stats] = (
    await db.query<{ transactions: string; rows: string; wal: string }>(
      `SELECT xact_commit AS transactions, tup_inserted + tup_updated + tup_deleted AS rows,
              pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS wal
       FROM pg_stat_database WHERE datname = $1`,
      [database],
    )
  ).rows;
  return {
    transactions: Number(stats.transactions),
    rowsWritten: Number(stats.rows),
    statements: await statementCount(db, database),
    walBytes: BigInt(stats.wal.split('.')[0]),
  };
}

if (require.main === module) {
  run().then(
    (results) => {
      console.log('Cost of a synchronous NFT mint (quick local chains, fresh before the warm-up):');
      console.table(
        results.map(({ cpuMsPerMint: _cpu, walByRelation: _wal, ...figures }) => ({
          ...figures,
          statementsPerMint: figures.statementsPerMint ?? 'n/a',
        })),
      );
      for (const result of results) {
        const byKind = Object.entries(result.cpuMsPerMint)
          .sort((a, b) => b[1] - a[1])
          .map(([kind, ms]) => `${kind} ${ms}`)
          .join(', ');
        console.log(`${result.family}: CPU ms a mint: ${byKind}`);
        if (result.walByRelation) {
          console.log(`${result.family}: WAL bytes a mint, by relation and record:`);
          console.table(result.walByRelation);
        }
        console.log(
          `${result.family}: service ${result.serviceCpuMsPerMint} ms a mint ` +
            `(target <= ${TARGET_MS}) ${result.met ? 'met' : 'NOT MET'}; ` +
            `its warm-up's mints ${result.coldServiceCpuMsPerMint} ms`,
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
