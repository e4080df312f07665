/**
 * The fault suite: token mints over EVM and Solana through the HTTP API while the worker is
 * SIGKILLed three times, Redis is flushed, Postgres restarts, one RPC endpoint per chain dies,
 * the EVM chain reorgs twice (its newest blocks replaced by empty ones, their transactions gone)
 * and the account's wallets are drained for a while (writes then fail as 409 or wait for funds);
 * then every recipient's balance is read from the chains, which tell whether each accepted mint
 * landed exactly once. Uses a Postgres and a Redis of its own (never the shared ones).
 *
 * Run: npm run chaos
 *   CHAOS_MINTS=1000            mints in all, split evenly between EVM and Solana
 *   CHAOS_CONCURRENCY=24        mint requests in flight
 *   CHAOS_RPC_FAILOVER=1        two RPC endpoints per chain, one of each killed (0: one, none)
 *   CHAOS_REORG_DEPTH=2         blocks each EVM reorg replaces (0: no reorgs); the service then
 *                               waits for one confirmation more (EVM_CONFIRMATIONS_BASE)
 *   CHAOS_SEED=<n>              replays a fault schedule (printed by every run)
 *   CHAOS_SETTLE_TIMEOUT_MS=300000   how long to wait for settlement after the last fault
 *   CHAOS_PG_DOWN_MS=3000       how long Postgres stays down
 *   CHAOS_DRAIN_MS=3000         how long the account's wallets stay empty (0: never drained)
 *   CHAOS_STALL_MS=90000        no progress for this long: the remaining faults strike at once
 * Exit code 1 when a mint was lost or doubled; figures in test-results/chaos.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { getAddress, hexlify, randomBytes } from 'ethers';
import { evmReader, queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { startOwnRedis } from '@test/support/own-redis';
import { newAccountClient, startServiceStack } from '@test/support/service-stack';
import { round, runConcurrently } from '../../bench/stats';
import { brokePromise } from './chaos-figures';
import { printReport, writeServiceLogs } from './chaos-report';
import { latencies, verdict } from './chaos-verdict';
import { planFaults, runFaults, seededRandom, type Fault } from './fault-schedule';
import {
  mintRequest,
  pollUnsettled,
  sendUntilAccepted,
  sleep,
  type MintRequest,
} from './mint-client';
import { startOwnPostgres } from './own-postgres';
import { rpcEndpointPairs } from './rpc-endpoints';
import { Supervisor } from './supervisor';
import { drainWallets } from './wallet-drain';

const ROOT = join(__dirname, '..', '..');
const RESULTS = join(ROOT, 'test-results');

const config = {
  mints: envInt('CHAOS_MINTS', 1000),
  concurrency: envInt('CHAOS_CONCURRENCY', 24),
  rpcFailover: process.env.CHAOS_RPC_FAILOVER !== '0',
  reorgDepth: envInt('CHAOS_REORG_DEPTH', 2),
  seed: envInt('CHAOS_SEED', Math.floor(Math.random() * 2 ** 31)),
  settleTimeoutMs: envInt('CHAOS_SETTLE_TIMEOUT_MS', 300_000),
  pgDownMs: envInt('CHAOS_PG_DOWN_MS', 3_000),
  drainMs: envInt('CHAOS_DRAIN_MS', 3_000),
  /** Progress standing still this long: the remaining faults strike anyway (the run must end). */
  stallMs: envInt('CHAOS_STALL_MS', 90_000),
  /** A request the API has not accepted after this long is given up (reported, not retried). */
  giveUpMs: 300_000,
};

/** Undone in reverse order at the end, also on failure and on Ctrl-C. */
const cleanups: { name: string; run: () => Promise<unknown> }[] = [];
const startedAt = performance.now();

function log(line: string): void {
  console.log(`[chaos ${((performance.now() - startedAt) / 1000).toFixed(1)}s] ${line}`);
}

async function main(): Promise<number> {
  log(`config ${JSON.stringify(config)}`);
  const [postgres, redis] = await Promise.all([startOwnPostgres(), startOwnRedis()]);
  cleanups.push({ name: 'postgres', run: () => postgres.stop() });
  cleanups.push({ name: 'redis', run: () => redis.stop() });
  // startTestServices makes the run's database on the server DATABASE_URL names.
  process.env.DATABASE_URL = postgres.url;
  process.env.REDIS_URL = redis.url;
  log(`own postgres ${postgres.url}, own redis ${redis.url}`);

  const rpc = config.rpcFailover ? await rpcEndpointPairs() : undefined;
  if (rpc) cleanups.push({ name: 'rpc proxies', run: () => rpc.close() });
  const stack = await startServiceStack({
    // Receipts are final only blocks deep (below): the chain keeps mining, as a public one does.
    chains: { ...rpc?.ports, ...(config.reorgDepth > 0 && { evmIdleBlockSeconds: 1 }) },
    env: {
      RATE_LIMIT_REQUESTS: '1000000000',
      ...rpc?.env,
      // A receipt a reorg can take away is not final: one block deeper than any reorg here.
      ...(config.reorgDepth > 0 && { EVM_CONFIRMATIONS_BASE: String(config.reorgDepth + 1) }),
    },
    // The worker runs as one replica, restarted under its name after each kill (a StatefulSet
    // pod, a systemd unit): it takes its dead predecessor's shards at once. A killed worker
    // without one waits for its leases to lapse: test/e2e/worker-kill-resume.test.ts.
    workerEnv: { WORKER_REPLICA: 'chaos-worker' },
  });
  cleanups.push({ name: 'service stack', run: () => stack.stop() });
  const supervisor = new Supervisor(stack, startedAt, log);
  cleanups.push({ name: 'supervisor', run: () => supervisor.close() });
  let logsSaved = false;
  const saveLogs = () => {
    if (!logsSaved) writeServiceLogs(supervisor, join(RESULTS, 'chaos-logs'));
    logsSaved = true;
  };
  cleanups.push({ name: 'service logs', run: async () => saveLogs() });

  const { api, key: apiKey, account } = await newAccountClient(stack.http);
  const walletOf = (family: string) =>
    account.wallets.find((wallet) => wallet.network === family)!.public_key;
  const tokens = {
    evm: await createToken(api, 'base'),
    solana: await createToken(api, 'solana'),
  };
  log(`tokens: ${JSON.stringify(tokens)}`);
  const setupS = seconds(startedAt);

  const requests = plannedRequests(config.mints);
  const random = seededRandom(config.seed);
  const faults: Fault[] = [
    ...[1, 2, 3].map((n) => ({
      name: `worker SIGKILL #${n}`,
      inject: () => supervisor.killWorker((count) => Math.floor(random() * count)),
    })),
    {
      name: 'redis FLUSHALL',
      inject: async () => {
        await redis.flushAll();
        return 'every key gone';
      },
    },
    {
      name: 'postgres restart',
      inject: async () => {
        await postgres.restart(config.pgDownMs);
        return `stopped (fast), down ${config.pgDownMs} ms, started`;
      },
    },
    ...(rpc
      ? (['evm', 'solana'] as const).map((chain) => ({
          name: `${chain} RPC endpoint dies`,
          inject: async () => {
            await rpc[chain][0].close();
            return `${rpc[chain][0].url} refuses connections for good; ${rpc[chain][1].url} lives`;
          },
        }))
      : []),
    ...(config.drainMs > 0
      ? [
          {
            name: 'wallets drained',
            inject: () =>
              drainWallets(
                {
                  evm: { rpcUrl: stack.chains.evmRpcUrl, wallet: walletOf('evm') },
                  solana: { rpcUrl: stack.chains.solanaRpcUrl, wallet: walletOf('solana') },
                },
                config.drainMs,
              ),
          },
        ]
      : []),
    ...(config.reorgDepth > 0
      ? [1, 2].map((n) => ({
          name: `evm reorg #${n}`,
          // Early, while most mints are still being sent: blocks with some (the load is over in seconds).
          latest: 0.2,
          inject: () => reorg(stack.chains.evmRpcUrl, config.reorgDepth),
        }))
      : []),
  ];
  const plan = planFaults(faults, random);
  log(
    `seed ${config.seed}; schedule: ${plan.map((f) => `${f.name} @${Math.round(f.atProgress * 100)}%`).join(', ')}`,
  );

  // Progress = (accepted + settled) / (2 x requests): the faults land over acceptance and
  // settlement alike. Settled is counted in the database, cheaply, twice a second.
  let accepted = 0;
  let settledInDb = 0;
  let loadDone = false;
  const sampler = setInterval(() => {
    queryDatabase<{ n: number }>(
      stack.services.databaseUrl,
      `SELECT count(*)::int AS n FROM operations
        WHERE kind = 'token.mint' AND status IN ('confirmed', 'failed')`,
    ).then(
      ([row]) => (settledInDb = row.n),
      () => undefined, // Postgres is down: keep the last count.
    );
  }, 500);
  cleanups.push({ name: 'sampler', run: async () => clearInterval(sampler) });
  const progress = () => (accepted + settledInDb) / (2 * requests.length);
  const finished = () => loadDone && settledInDb >= accepted;

  const loadStart = performance.now();
  let faultsDoneAt: number | undefined;
  const faultRun = runFaults(plan, progress, finished, {
    startedAt,
    stallMs: config.stallMs,
    log,
  }).then((records) => {
    faultsDoneAt = performance.now();
    return records;
  });
  await runConcurrently(requests.length, config.concurrency, async (i) => {
    const request = requests[i];
    await sendUntilAccepted(
      stack.http.baseUrl,
      apiKey,
      tokens[request.chain],
      request,
      Date.now() + config.giveUpMs,
    );
    if (request.operationId) accepted += 1;
  });
  loadDone = true;
  const loadS = seconds(loadStart);
  log(`load done: ${accepted} of ${requests.length} accepted in ${loadS} s`);

  const settleStart = performance.now();
  const settled = await settleAll(
    api,
    requests,
    () => faultsDoneAt,
    () => settledInDb,
  );
  const faultRecords = await faultRun;
  const settleS = seconds(settleStart);
  // How long the service took to settle everything once the last fault was over.
  const recoveryS = round(Math.max(0, performance.now() - (faultsDoneAt ?? 0)) / 1000);
  log(settled ? `all settled after ${settleS} s` : `gave up waiting after ${settleS} s`);

  const figures = await verdict(stack, tokens, requests);
  const report = {
    config,
    tokens,
    figures,
    timings: {
      setup_s: setupS,
      load_s: loadS,
      settle_s: settleS,
      all_settled: settled,
      recovery_after_last_fault_s: settled ? recoveryS : null,
      total_s: seconds(startedAt),
      ...(await latencies(stack.services.databaseUrl, requests)),
    },
    faults: faultRecords,
    unexpected_exits: supervisor.unexpectedExits,
  };
  saveLogs();
  printReport(report.figures, report.timings, faultRecords, supervisor.unexpectedExits);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'chaos.json'), JSON.stringify(report, null, 2) + '\n');
  log(`figures written to test-results/chaos.json, service logs to test-results/chaos-logs/`);
  const broken = Object.values(figures).some(brokePromise);
  log(broken ? 'FAILED: a mint was lost or doubled' : 'PASSED: every accepted mint landed once');
  return broken ? 1 : 0;
}

/**
 * Replaces the newest `depth` blocks of anvil with empty ones: their transactions are gone from
 * the chain and from the node's pool, as on a node that does not take them back. Waits (up to
 * 5 s) for those blocks to hold some: a reorg of empty blocks tests nothing.
 */
async function reorg(rpcUrl: string, depth: number): Promise<string> {
  const provider = evmReader(rpcUrl);
  try {
    const deadline = Date.now() + 5_000;
    let head: number;
    let gone: number;
    do {
      head = await provider.getBlockNumber();
      const blocks = await Promise.all(
        Array.from({ length: depth }, (_, i) => provider.getBlock(head - i)),
      );
      gone = blocks.reduce((sum, block) => sum + (block?.transactions.length ?? 0), 0);
      if (gone === 0) await sleep(100);
    } while (gone === 0 && Date.now() < deadline);
    await provider.send('anvil_reorg', [depth, []]);
    return `blocks ${head - depth + 1}-${head} replaced by empty ones: ${gone} transactions gone`;
  } finally {
    provider.destroy();
  }
}

/** One token per chain, decimals 0, so a mint of 1 is one base unit on chain. */
async function createToken(api: HttpClient, network: 'base' | 'solana'): Promise<string> {
  const created = await api.post('/tokens', {
    network,
    name: `Chaos ${network}`,
    symbol: 'CHAOS',
    amount: 1,
    decimals: 0,
  });
  if (![200, 202].includes(created.status)) {
    throw new Error(`token create on ${network}: ${JSON.stringify(created.body)}`);
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const data = (await api.get(`/operations/${created.body.data.operation_id}`)).body.data;
    if (data.status === 'confirmed') return data.mint_address as string;
    if (data.status === 'failed' || Date.now() > deadline) {
      throw new Error(`token create on ${network}: ${JSON.stringify(data)}`);
    }
    await sleep(200);
  }
}

/** EVM and Solana mints interleaved, each to a recipient nobody has used. */
function plannedRequests(mints: number): MintRequest[] {
  return Array.from({ length: mints }, (_, i) =>
    i % 2 === 0
      ? mintRequest('evm', getAddress(hexlify(randomBytes(20))))
      : mintRequest('solana', Keypair.generate().publicKey.toBase58()),
  );
}

/**
 * Follows the accepted operations over GET /operations/{id} until all are confirmed or failed,
 * the faults are over, or CHAOS_SETTLE_TIMEOUT_MS after the last fault. The database count only
 * says when a sweep over the API is worth making.
 */
async function settleAll(
  api: HttpClient,
  requests: MintRequest[],
  faultsDoneAt: () => number | undefined,
  settledInDb: () => number,
): Promise<boolean> {
  const acceptedCount = requests.filter((r) => r.operationId).length;
  let lastSweep = 0;
  for (;;) {
    const doneAt = faultsDoneAt();
    const timedOut = doneAt !== undefined && performance.now() > doneAt + config.settleTimeoutMs;
    const worthASweep =
      settledInDb() >= acceptedCount || performance.now() - lastSweep > 15_000 || timedOut;
    if (worthASweep) {
      lastSweep = performance.now();
      const unsettled = await pollUnsettled(api, requests, 16);
      if (unsettled === 0 && doneAt !== undefined) return true;
      if (timedOut) return false;
      log(`${unsettled} operations not settled yet`);
    }
    await sleep(1_000);
  }
}

function seconds(since: number): number {
  return round((performance.now() - since) / 1000);
}

function envInt(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be an integer`);
  return parsed;
}

async function cleanUp(): Promise<void> {
  for (const step of cleanups.splice(0).reverse()) {
    await step.run().catch((error: Error) => log(`cleanup of ${step.name}: ${error.message}`));
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  });
}

void main()
  .catch((error: Error) => {
    log(`the run could not complete: ${error.stack ?? error.message}`);
    if (config.rpcFailover && /LOCAL_(EVM|SOLANA)_RPC_URL/.test(error.message)) {
      log('this service takes one RPC URL per chain: run with CHAOS_RPC_FAILOVER=0');
    }
    return 2;
  })
  .then(async (code) => {
    await cleanUp();
    process.exit(code);
  });
