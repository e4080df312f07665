/**
 * The fault suite: token mints over EVM and Solana through the HTTP API, and beside them one
 * token airdrop per chain, while the worker is SIGKILLed three times, Redis is flushed,
 * Postgres restarts, one RPC endpoint per chain dies, the EVM chain reorgs twice (its newest
 * blocks replaced by empty ones, their transactions gone) and the account's wallets are drained
 * for a while (writes then fail as 409 or wait for funds); then every recipient's balance is
 * read from the chains, which tell whether each accepted mint and each airdrop entry landed
 * exactly once. Uses a Postgres and a Redis of its own (never the shared ones).
 *
 * The airdrops (POST /tokens/{mint}/airdrop, a token of their own on each chain, fresh
 * recipients with distinct amounts) are sent first, with an Idempotency-Key, retried with it
 * until accepted, then sent again right away and after settlement: each replay must answer the
 * same batch. Their carriers are in flight while the faults strike (each fault records what was
 * in flight). The verdict counts their lost and doubled entries apart from the single mints',
 * and wants the batch `completed` with its counts and items as the chain has them; an entry the
 * API reports failed is fine only if nothing of it landed.
 *
 * Run: npm run chaos
 *   CHAOS_MINTS=1000            mints in all, split evenly between EVM and Solana
 *   CHAOS_AIRDROP_RECIPIENTS=500   entries of the airdrop on each chain (0: no airdrops)
 *   CHAOS_AIRDROP_GAS_PERCENT=2    the service's AIRDROP_BLOCK_GAS_PERCENT (0: its default, 50):
 *                               about 18 entries an EVM carrier, so that they ride through the
 *                               run, instead of 2 transactions settled before most faults
 *   CHAOS_CONCURRENCY=24        mint requests in flight
 *   CHAOS_RPC_FAILOVER=1        two RPC endpoints per chain, one of each killed (0: one, none)
 *   CHAOS_REORG_DEPTH=2         blocks each EVM reorg replaces (0: no reorgs); the service then
 *                               waits for one confirmation more (EVM_CONFIRMATIONS_BASE)
 *   CHAOS_SEED=<n>              replays a fault schedule (printed by every run)
 *   CHAOS_SETTLE_TIMEOUT_MS=300000   how long to wait for settlement after the last fault
 *   CHAOS_PG_DOWN_MS=3000       how long Postgres stays down
 *   CHAOS_DRAIN_MS=3000         how long the account's wallets stay empty (0: never drained)
 *   CHAOS_STALL_MS=90000        no progress for this long: the remaining faults strike at once
 *   CHAOS_HA=sentinel|cluster   (npm run chaos:ha runs both) Postgres is a Patroni pair behind
 *                               HAProxy and Redis sits behind 3 Sentinels, or is a 3-master
 *                               Cluster; instead of the flush and the restart, the Postgres
 *                               primary node and a Redis primary (a master) are SIGKILLed, each
 *                               replaced by its promoted standby; 3 workers instead of 1
 * Exit code 1 when a mint or an airdrop entry was lost or doubled, or an airdrop broke another
 * promise (its problems are printed); figures in test-results/chaos[-<CHAOS_HA>].json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { getAddress, hexlify, randomBytes } from 'ethers';
import { evmReader } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { newAccountClient, startServiceStack } from '@test/support/service-stack';
import { round, runConcurrently } from '../../bench/stats';
import {
  batchSettled,
  followBatch,
  plannedAirdrop,
  refreshBatch,
  replayAirdrop,
  sendAirdropUntilAccepted,
  type AirdropRequest,
} from './airdrop-client';
import { brokePromise } from './chaos-figures';
import { chaosTopology, startChaosInfra } from './chaos-infra';
import { printReport, writeServiceLogs } from './chaos-report';
import { airdropVerdict, latencies, verdict } from './chaos-verdict';
import { planFaults, runFaults, seededRandom, type Fault } from './fault-schedule';
import {
  mintRequest,
  pollUnsettled,
  sendUntilAccepted,
  sleep,
  type Chain,
  type MintRequest,
} from './mint-client';
import { rpcEndpointPairs } from './rpc-endpoints';
import { sampleQuery } from './sample-query';
import { Supervisor } from './supervisor';
import { drainWallets } from './wallet-drain';

const ROOT = join(__dirname, '..', '..');
const RESULTS = join(ROOT, 'test-results');

const config = {
  mints: envInt('CHAOS_MINTS', 1000),
  /** Recipients of the token airdrop on each chain family (0: no airdrop). */
  airdropRecipients: envInt('CHAOS_AIRDROP_RECIPIENTS', 500),
  /** AIRDROP_BLOCK_GAS_PERCENT of the service (0: its own default, 50). */
  airdropGasPercent: envInt('CHAOS_AIRDROP_GAS_PERCENT', 2),
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
  /** CHAOS_HA: `sentinel` or `cluster` Redis and a Patroni Postgres pair, with 3 workers. */
  topology: chaosTopology(process.env.CHAOS_HA),
};
/** Names the run's figures and logs in test-results/. */
const runName = config.topology === 'single' ? 'chaos' : `chaos-${config.topology}`;

/** Undone in reverse order at the end, also on failure and on Ctrl-C. */
const cleanups: { name: string; run: () => Promise<unknown> }[] = [];
const startedAt = performance.now();

function log(line: string): void {
  console.log(`[chaos ${((performance.now() - startedAt) / 1000).toFixed(1)}s] ${line}`);
}

async function main(): Promise<number> {
  log(`config ${JSON.stringify(config)}`);
  const infra = await startChaosInfra(config.topology, config.pgDownMs);
  cleanups.push({ name: 'postgres and redis', run: () => infra.stop() });
  log(infra.describe);
  const highlyAvailable = config.topology !== 'single';

  const rpc = config.rpcFailover ? await rpcEndpointPairs() : undefined;
  if (rpc) cleanups.push({ name: 'rpc proxies', run: () => rpc.close() });
  const stack = await startServiceStack({
    postgresUrl: infra.postgresUrl,
    workers: highlyAvailable ? 3 : 1,
    // Receipts are final only blocks deep (below): the chain keeps mining, as a public one does.
    chains: { ...rpc?.ports, ...(config.reorgDepth > 0 && { evmIdleBlockSeconds: 1 }) },
    env: {
      ...infra.redisEnv,
      RATE_LIMIT_REQUESTS: '1000000000',
      ...rpc?.env,
      // A receipt a reorg can take away is not final: one block deeper than any reorg here.
      ...(config.reorgDepth > 0 && { EVM_CONFIRMATIONS_BASE: String(config.reorgDepth + 1) }),
      // Small EVM carriers: at the service's 50 % of anvil's 30M-gas block, 500 entries go in
      // two transactions, settled seconds after the airdrop is accepted, before most faults.
      ...(config.airdropGasPercent > 0 && {
        AIRDROP_BLOCK_GAS_PERCENT: String(config.airdropGasPercent),
      }),
    },
    // The worker runs as one replica, restarted under its name after each kill (a StatefulSet
    // pod, a systemd unit): it takes its dead predecessor's shards at once. A killed worker
    // without one waits for its leases to lapse: test/e2e/worker-kill-resume.test.ts.
    // With 3 workers (CHAOS_HA) each is its own: a killed one's leases lapse.
    workerEnv: highlyAvailable ? {} : { WORKER_REPLICA: 'chaos-worker' },
  });
  cleanups.push({ name: 'service stack', run: () => stack.stop() });
  const supervisor = new Supervisor(stack, startedAt, log);
  cleanups.push({ name: 'supervisor', run: () => supervisor.close() });
  let logsSaved = false;
  const saveLogs = () => {
    if (!logsSaved) writeServiceLogs(supervisor, join(RESULTS, `${runName}-logs`));
    logsSaved = true;
  };
  cleanups.push({ name: 'service logs', run: async () => saveLogs() });

  const { api, key: apiKey, account } = await newAccountClient(stack.http);
  const walletOf = (family: string) =>
    account.wallets.find((wallet) => wallet.network === family)!.public_key;
  // The airdrops mint tokens of their own, so that each token's supply accounts for one kind of
  // write: the single mints' recipients hold all of one, the airdrop's all of the other.
  const airdropping = config.airdropRecipients > 0;
  const [evmToken, solanaToken, evmDrop, solanaDrop] = await Promise.all([
    createToken(api, 'base', 'Chaos'),
    createToken(api, 'solana', 'Chaos'),
    ...(airdropping
      ? [createToken(api, 'base', 'Chaos drop'), createToken(api, 'solana', 'Chaos drop')]
      : []),
  ]);
  const tokens = { evm: evmToken, solana: solanaToken };
  const airdrops: AirdropRequest[] = airdropping
    ? [
        plannedAirdrop('evm', evmDrop, config.airdropRecipients),
        plannedAirdrop('solana', solanaDrop, config.airdropRecipients),
      ]
    : [];
  log(
    `tokens: ${JSON.stringify(tokens)}; airdrop tokens: ${airdrops.map((a) => a.token).join(', ')}`,
  );
  const setupS = seconds(startedAt);

  const requests = plannedRequests(config.mints);
  const random = seededRandom(config.seed);
  const faults: Fault[] = [
    ...[1, 2, 3].map((n) => ({
      name: `worker SIGKILL #${n}`,
      inject: () => supervisor.killWorker((count) => Math.floor(random() * count)),
    })),
    ...infra.faults,
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
                  evm: {
                    rpcUrl: stack.chains.evmRpcUrl,
                    wallet: walletOf('evm'),
                    reorgDepth: config.reorgDepth,
                  },
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

  // Progress = (accepted + settled) / (2 x requests) of the single mints, plus the airdrop
  // entries settled: the faults land over acceptance and settlement alike. Settled is counted in
  // the database, cheaply, twice a second, with the airdrops' carriers still in flight.
  let accepted = 0;
  let settledInDb = 0;
  const entries = { accepted: { evm: 0, solana: 0 }, settled: { evm: 0, solana: 0 } };
  const carriersInFlight = { evm: 0, solana: 0 };
  let loadDone = false;
  let sampling = false; // one sample at a time: a slow one is not piled onto
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    void sampleQuery<{ solana: boolean; singles: number; entries: number; carriers: number }>(
      stack.services.databaseUrl,
      `SELECT network = 'solana' AS solana,
              count(*) FILTER (WHERE kind = 'token.mint' AND batch_id IS NULL
                AND status IN ('confirmed', 'failed'))::int AS singles,
              count(*) FILTER (WHERE kind = 'token.mint' AND batch_id IS NOT NULL
                AND status IN ('confirmed', 'failed'))::int AS entries,
              count(*) FILTER (WHERE kind = 'token.mintBatch'
                AND status NOT IN ('confirmed', 'failed'))::int AS carriers
         FROM operations WHERE kind IN ('token.mint', 'token.mintBatch') GROUP BY 1`,
    )
      .then(
        (rows) => {
          settledInDb = rows.reduce((sum, row) => sum + row.singles, 0);
          for (const row of rows) {
            const chain: Chain = row.solana ? 'solana' : 'evm';
            entries.settled[chain] = row.entries;
            carriersInFlight[chain] = row.carriers;
          }
        },
        () => undefined, // Postgres is down: keep the last count.
      )
      .finally(() => (sampling = false));
  }, 500);
  cleanups.push({ name: 'sampler', run: async () => clearInterval(sampler) });
  const sum = (counts: Record<Chain, number>) => counts.evm + counts.solana;
  const entriesPlanned = airdrops.reduce((n, drop) => n + drop.entries.length, 0);
  const progress = () =>
    (accepted + settledInDb + sum(entries.settled)) / (2 * requests.length + entriesPlanned);
  const allSettledInDb = () =>
    settledInDb >= accepted && sum(entries.settled) >= sum(entries.accepted);
  const finished = () => loadDone && allSettledInDb();
  // What each fault struck: the airdrops' entries not settled yet and carriers in flight.
  const inFlight = () =>
    airdrops.length
      ? Object.fromEntries(
          airdrops.map(({ chain, batchId }) => [
            chain,
            batchId
              ? {
                  entries_unsettled: entries.accepted[chain] - entries.settled[chain],
                  carriers_in_flight: carriersInFlight[chain],
                }
              : 'not accepted yet',
          ]),
        )
      : undefined;

  const loadStart = performance.now();
  let faultsDoneAt: number | undefined;
  const faultRun = runFaults(plan, progress, finished, {
    startedAt,
    stallMs: config.stallMs,
    log,
    snapshot: inFlight,
  }).then((records) => {
    faultsDoneAt = performance.now();
    return records;
  });
  // The airdrops go first, beside the single mints: their carriers are in flight from the start.
  // Each accepted batch is followed over GET /batches/{id} until it completes.
  let stopFollowing = false;
  const followers: Promise<void>[] = [];
  const airdropLoad = Promise.all(
    airdrops.map(async (drop) => {
      await sendAirdropUntilAccepted(
        stack.http.baseUrl,
        apiKey,
        drop,
        Date.now() + config.giveUpMs,
      );
      if (!drop.batchId) {
        log(`airdrop on ${drop.chain} not accepted: ${drop.refused}`);
        return;
      }
      entries.accepted[drop.chain] = drop.entries.length;
      followers.push(followBatch(api, drop, () => stopFollowing));
      log(
        `airdrop on ${drop.chain}: batch ${drop.batchId} of ${drop.entries.length} accepted ` +
          `after ${drop.attempts} attempts, ${round(drop.acceptMs! / 1000)} s`,
      );
      const replay = await replayAirdrop(
        stack.http.baseUrl,
        apiKey,
        drop,
        'after acceptance',
        Date.now() + config.giveUpMs,
      );
      log(`airdrop on ${drop.chain} replayed: ${replay.problem ?? 'the same batch'}`);
    }),
  );

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
  await airdropLoad;
  loadDone = true;
  const loadS = seconds(loadStart);
  log(`load done: ${accepted} of ${requests.length} accepted in ${loadS} s`);

  const settleStart = performance.now();
  const settled = await settleAll(api, requests, airdrops, () => faultsDoneAt, allSettledInDb);
  stopFollowing = true;
  await Promise.all(followers);
  const faultRecords = await faultRun;
  const settleS = seconds(settleStart);
  // How long the service took to settle everything once the last fault was over.
  const recoveryS = round(Math.max(0, performance.now() - (faultsDoneAt ?? 0)) / 1000);
  log(settled ? `all settled after ${settleS} s` : `gave up waiting after ${settleS} s`);

  // Long after its first answer, through every fault, the key still names the same batch.
  for (const drop of airdrops.filter((d) => d.batchId)) {
    await replayAirdrop(stack.http.baseUrl, apiKey, drop, 'after settlement', Date.now() + 60_000);
  }

  const figures = await verdict(stack, tokens, requests);
  const airdropFigures = await airdropVerdict(stack, api, airdrops);
  const report = {
    config,
    tokens,
    airdrop_tokens: Object.fromEntries(airdrops.map((drop) => [drop.chain, drop.token])),
    figures,
    airdrop: airdropFigures,
    timings: {
      setup_s: setupS,
      load_s: loadS,
      settle_s: settleS,
      all_settled: settled,
      recovery_after_last_fault_s: settled ? recoveryS : null,
      total_s: seconds(startedAt),
      ...(await latencies(stack.services.databaseUrl, requests)),
      airdrop: Object.fromEntries(
        airdrops.map((drop) => [
          drop.chain,
          {
            accept_ms: drop.acceptMs === undefined ? null : round(drop.acceptMs),
            attempts: drop.attempts,
            settle_s: airdropFigures[drop.chain]?.settle_s ?? null,
            // The client's view: from its 202 to the first GET /batches/{id} saying completed.
            seen_completed_after_s:
              drop.acceptedAt !== undefined && drop.completedSeenAt !== undefined
                ? round((drop.completedSeenAt - drop.acceptedAt) / 1000)
                : null,
          },
        ]),
      ),
    },
    faults: faultRecords,
    unexpected_exits: supervisor.unexpectedExits,
  };
  saveLogs();
  printReport(
    report.figures,
    airdropFigures,
    report.timings,
    faultRecords,
    supervisor.unexpectedExits,
  );
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, `${runName}.json`), JSON.stringify(report, null, 2) + '\n');
  log(
    `figures written to test-results/${runName}.json, service logs to test-results/${runName}-logs/`,
  );
  const brokenMints = Object.values(figures).some(brokePromise);
  const brokenAirdrops = Object.values(airdropFigures).some((f) => f.problems.length > 0);
  if (brokenMints) log('FAILED: a single mint was lost or doubled');
  if (brokenAirdrops) log('FAILED: an airdrop broke a promise (see its problems above)');
  if (!brokenMints && !brokenAirdrops) {
    log(
      airdrops.length
        ? 'PASSED: every accepted mint and airdrop entry landed once, as the API says'
        : 'PASSED: every accepted mint landed once',
    );
  }
  return brokenMints || brokenAirdrops ? 1 : 0;
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

/** A token on one chain, decimals 0, so a mint of 1 is one base unit on chain. */
async function createToken(
  api: HttpClient,
  network: 'base' | 'solana',
  name: string,
): Promise<string> {
  const created = await api.post('/tokens', {
    network,
    name: `${name} ${network}`,
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
 * Follows the accepted operations over GET /operations/{id}, and the airdrops over
 * GET /batches/{id}, until all are settled (the batches completed), the faults are over, or
 * CHAOS_SETTLE_TIMEOUT_MS after the last fault. The database counts only say when a sweep over
 * the API is worth making.
 */
async function settleAll(
  api: HttpClient,
  requests: MintRequest[],
  airdrops: AirdropRequest[],
  faultsDoneAt: () => number | undefined,
  allSettledInDb: () => boolean,
): Promise<boolean> {
  let lastSweep = 0;
  for (;;) {
    const doneAt = faultsDoneAt();
    const timedOut = doneAt !== undefined && performance.now() > doneAt + config.settleTimeoutMs;
    const worthASweep = allSettledInDb() || performance.now() - lastSweep > 15_000 || timedOut;
    if (worthASweep) {
      lastSweep = performance.now();
      const unsettled = await pollUnsettled(api, requests, 16);
      const open = airdrops.filter((drop) => drop.batchId && !batchSettled(drop));
      await Promise.all(open.map((drop) => refreshBatch(api, drop)));
      const running = open.filter((drop) => !batchSettled(drop));
      if (unsettled === 0 && running.length === 0 && doneAt !== undefined) return true;
      if (timedOut) return false;
      const batches = running.map((drop) => `${drop.chain} ${JSON.stringify(drop.batch?.counts)}`);
      log(
        `${unsettled} operations not settled yet${batches.length ? `; airdrops ${batches.join(', ')}` : ''}`,
      );
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
