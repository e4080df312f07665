/**
 * EVM NFT mints: raw ethers against anvil vs. the service through its API, in one run, each
 * measured on a fresh anvil with the same flags and the same number of mints (anvil slows as
 * blocks pile up).
 *   (a) raw: one wallet mints the same ERC-721 with pipelined, explicit nonces;
 *   (b) the service: 64 concurrent API clients of one account, sync mode, after a warm-up.
 * Also the latency the service adds over a raw send-and-wait mint (p50, p99). Target (issue 25):
 * the service at least 0.6x the raw script.
 *
 * The service is measured as a deployment that has run a while: it first mints
 * `BENCH_WARMUP_MINTS` (3,000) on a chain of their own (network `polygon`, pointed at another
 * fresh anvil), then `BENCH_MINTS` on `base`, on the stack's fresh chain. A fresh process spends
 * its first thousands of mints compiling (V8's optimizing compiler was 22% of the API's CPU over
 * mints 1,000-4,000, `bench:mint-cost`); the warm-up's own chain keeps the measured chain as fresh
 * as the raw script's. The warm-up's first `BENCH_MINTS` are timed too: `coldServiceMintsPerSecond`
 * and `coldRatio` are the bench's figures before session 31 (fresh processes, fresh chain). The
 * raw script runs before the service and after it: `coldRatio` is against the run before,
 * `ratio` against the run after, each the one next to it in time.
 * Run: npm run bench:evm   (BENCH_MINTS=400, BENCH_WARMUP_MINTS=3000 by default)
 */
import { JsonRpcProvider, Wallet } from 'ethers';
import { QUICK_CHAIN_SWEEP, startAnvil, sweepEvmPool } from '@app/localnet';
import { jsonRpc, setEvmBalance } from '@test/support/chain-control';
import { newAccountClient, startServiceStack } from '@test/support/service-stack';
import {
  ANVIL_MNEMONIC,
  deployCollection,
  IMAGE,
  RAW_PROVIDER_OPTIONS,
  rawMintSigner,
  serviceCollection,
  waitForReceipt,
} from './evm-helpers';
import { cpuSummary, cpuWindow } from './cpu-usage';
import { LoadClient } from './load-client';
import { callsPerMint, percentile, round, runConcurrently } from './stats';

const CLIENTS = 64;
/** The network the warm-up mints on: the stack's `base` is the measured one. */
const WARMUP_NETWORK = 'polygon';
/** Issue 25: the service at least this fraction of the raw script's mints/s. */
const TARGET_RATIO = 0.6;

export interface EvmBenchResult {
  mints: number;
  rawMintsPerSecond: number;
  serviceMintsPerSecond: number;
  ratio: number;
  /** The raw script's run before the service's (`rawMintsPerSecond` is the one after). */
  rawBeforeMintsPerSecond: number;
  /**
   * The warm-up's first `mints`, fresh processes on a fresh chain (the bench before session 31),
   * against the raw run before them.
   */
  coldServiceMintsPerSecond: number;
  coldRatio: number;
  rawLatencyP50: number;
  rawLatencyP99: number;
  serviceLatencyP50: number;
  serviceLatencyP99: number;
  addedLatencyP50: number;
  addedLatencyP99: number;
  /** Blocks mined a mint in each timed run: anvil's cost is mostly a block's state root. */
  rawBlocksPerMint: number;
  serviceBlocksPerMint: number;
  /** Where the CPU went during each timed run (see cpu-usage.ts). */
  rawCpu: string;
  serviceCpu: string;
}

export async function run(
  mints = Number(process.env.BENCH_MINTS ?? 400),
  warmupMints = Number(process.env.BENCH_WARMUP_MINTS ?? 3000),
): Promise<EvmBenchResult> {
  // The raw script runs before and after the service, and each service figure is set against
  // the raw run next to it in time: this machine's speed moves by half within minutes.
  const rawBefore = await rawMints(mints);
  const { cold, ...service } = await serviceMints(mints, Math.max(warmupMints, mints));
  const raw = await rawMints(mints);
  const result: EvmBenchResult = {
    mints,
    rawMintsPerSecond: round(raw.rate),
    serviceMintsPerSecond: round(service.rate),
    ratio: round(service.rate / raw.rate, 2),
    rawBeforeMintsPerSecond: round(rawBefore.rate),
    coldServiceMintsPerSecond: round(cold.rate),
    coldRatio: round(cold.rate / rawBefore.rate, 2),
    rawLatencyP50: round(percentile(raw.latencies, 50)),
    rawLatencyP99: round(percentile(raw.latencies, 99)),
    serviceLatencyP50: round(percentile(service.latencies, 50)),
    serviceLatencyP99: round(percentile(service.latencies, 99)),
    addedLatencyP50: round(percentile(service.latencies, 50) - percentile(raw.latencies, 50)),
    addedLatencyP99: round(percentile(service.latencies, 99) - percentile(raw.latencies, 99)),
    rawBlocksPerMint: round(raw.blocksPerMint, 2),
    serviceBlocksPerMint: round(service.blocksPerMint, 2),
    rawCpu: raw.cpu,
    serviceCpu: service.cpu,
  };
  return result;
}

interface TimedRun {
  rate: number;
  /** Blocks the chain mined during the timed run, a mint. */
  blocksPerMint: number;
  latencies: number[];
  cpu: string;
}

/** (a) pipelined mints, then a separate sample of send-and-wait latency on the same chain. */
async function rawMints(mints: number): Promise<TimedRun> {
  const anvil = await startAnvil();
  const provider = new JsonRpcProvider(anvil.url, undefined, RAW_PROVIDER_OPTIONS);
  try {
    const wallet = Wallet.fromPhrase(ANVIL_MNEMONIC, provider);
    const collection = await deployCollection(wallet);
    const { firstNonce: start, sign } = await rawMintSigner(wallet, collection);
    const signed = await Promise.all(Array.from({ length: mints }, (_, i) => sign(start + i)));
    const firstBlock = await blockNumber(anvil.url);
    const cpu = cpuWindow();
    const started = performance.now();
    const hashes: string[] = [];
    // Sent in nonce order without waiting for receipts: the pipelined baseline.
    for (const tx of signed) hashes.push(await provider.send('eth_sendRawTransaction', [tx]));
    await Promise.all(hashes.map((hash) => waitForReceipt(provider, hash)));
    const rate = (mints * 1000) / (performance.now() - started);
    const usage = cpuSummary(cpu.stop());
    const blocksPerMint = ((await blockNumber(anvil.url)) - firstBlock) / mints;

    let nonce = start + mints;
    const latencies = await runConcurrently(Math.min(mints, 100), 1, async () => {
      const tx = await sign(nonce++);
      await waitForReceipt(provider, await provider.send('eth_sendRawTransaction', [tx]));
    });
    return { rate, blocksPerMint, latencies, cpu: usage };
  } finally {
    provider.destroy();
    await anvil.stop();
  }
}

/**
 * (b) the service, sync mode, 64 concurrent clients of one account: `warmupMints` on the warm-up
 * chain (the first `mints` of them timed as `cold`), then `mints` timed on the stack's own.
 */
async function serviceMints(
  mints: number,
  warmupMints: number,
): Promise<TimedRun & { cold: TimedRun }> {
  const warmupChain = await startAnvil();
  const sweeper = sweepEvmPool(warmupChain.url, QUICK_CHAIN_SWEEP);
  let stopping: Promise<void> | undefined;
  const stopWarmupChain = () =>
    (stopping ??= (async () => {
      sweeper.stop();
      await warmupChain.stop();
    })());
  try {
    const stack = await startServiceStack({
      env: {
        RATE_LIMIT_REQUESTS: '1000000',
        [`RPC_URL_${WARMUP_NETWORK.toUpperCase()}`]: warmupChain.url,
      },
      evmRecorder: process.env.BENCH_RPC_CALLS === '1',
    });
    try {
      const { api, key, account } = await newAccountClient(stack.http);
      // The local profile funds managed wallets on the stack's chain only.
      const signer = account.wallets.find(({ network }) => network !== 'solana')!.public_key;
      await setEvmBalance(warmupChain.url, signer, 10n ** 21n);
      const load = new LoadClient(stack.http.baseUrl, { 'api-key': key }, CLIENTS);
      try {
        const warmupCollection = await serviceCollection(api, WARMUP_NETWORK);
        const cold = await timedMints(load, warmupCollection, mints, warmupChain.url);
        await timedMints(load, warmupCollection, warmupMints - mints, warmupChain.url);
        // anvil's automine goes on mining empty blocks for many seconds after a flood of
        // concurrent sends (half the warm-up chain's blocks were empty, its last ones after every
        // mint had settled), each as dear as a full one on a chain this size: stopped, so that
        // its CPU is not counted against, nor taken from, the measured mints.
        await stopWarmupChain();
        const collection = await serviceCollection(api);
        const callsBefore = stack.evmRecorder?.calls().length ?? 0;
        const measured = await timedMints(load, collection, mints, stack.chains.evmRpcUrl);
        if (stack.evmRecorder) {
          const calls = stack.evmRecorder.calls().slice(callsBefore);
          console.log('EVM JSON-RPC calls a measured mint:', callsPerMint(calls, mints));
        }
        return { ...measured, cold };
      } finally {
        load.close();
      }
    } finally {
      await stack.stop();
    }
  } finally {
    await stopWarmupChain();
  }
}

async function timedMints(
  load: LoadClient,
  collection: string,
  mints: number,
  chainUrl: string,
): Promise<TimedRun> {
  let failures = 0;
  const firstBlock = await blockNumber(chainUrl);
  const cpu = cpuWindow();
  const started = performance.now();
  const latencies = await runConcurrently(mints, CLIENTS, async (i) => {
    const response = await load.post(`/nfts/${collection}/mint`, {
      name: `Bench ${i}`,
      images: [IMAGE],
    });
    if (response.status !== 200 || response.body.data.status !== 'confirmed') failures++;
  });
  const rate = (mints * 1000) / (performance.now() - started);
  const usage = cpuSummary(cpu.stop());
  if (failures) throw new Error(`${failures} service mints did not confirm in sync mode`);
  const blocksPerMint = ((await blockNumber(chainUrl)) - firstBlock) / mints;
  return { rate, blocksPerMint, latencies, cpu: usage };
}

async function blockNumber(chainUrl: string): Promise<number> {
  return Number(await jsonRpc<string>(chainUrl, 'eth_blockNumber'));
}

if (require.main === module) {
  run().then(
    (result) => {
      console.log('EVM NFT mints (fresh anvil each, automine):');
      console.table(result);
      console.log(`ratio service/raw = ${result.ratio} (target >= ${TARGET_RATIO})`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
