/**
 * EVM NFT mints: raw ethers against anvil vs. the service through its API, in one run, each on a
 * fresh anvil with the same flags and the same number of mints (anvil slows as blocks pile up).
 *   (a) raw: one wallet mints the same ERC-721 with pipelined, explicit nonces;
 *   (b) the service: 64 concurrent API clients of one account, sync mode.
 * Also the latency the service adds over a raw send-and-wait mint (p50, p99). Target (issue 25):
 * the service at least 0.6x the raw script.
 * Run: npm run bench:evm   (BENCH_MINTS=400 by default)
 */
import { JsonRpcProvider, Wallet } from 'ethers';
import { startAnvil } from '@app/localnet';
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
import { percentile, round, runConcurrently } from './stats';

const CLIENTS = 64;
/** Issue 25: the service at least this fraction of the raw script's mints/s. */
const TARGET_RATIO = 0.6;

export interface EvmBenchResult {
  mints: number;
  rawMintsPerSecond: number;
  serviceMintsPerSecond: number;
  ratio: number;
  rawLatencyP50: number;
  rawLatencyP99: number;
  serviceLatencyP50: number;
  serviceLatencyP99: number;
  addedLatencyP50: number;
  addedLatencyP99: number;
  /** Where the CPU went during each timed run (see cpu-usage.ts). */
  rawCpu: string;
  serviceCpu: string;
}

export async function run(mints = Number(process.env.BENCH_MINTS ?? 400)): Promise<EvmBenchResult> {
  const raw = await rawMints(mints);
  const service = await serviceMints(mints);
  const result: EvmBenchResult = {
    mints,
    rawMintsPerSecond: round(raw.rate),
    serviceMintsPerSecond: round(service.rate),
    ratio: round(service.rate / raw.rate, 2),
    rawLatencyP50: round(percentile(raw.latencies, 50)),
    rawLatencyP99: round(percentile(raw.latencies, 99)),
    serviceLatencyP50: round(percentile(service.latencies, 50)),
    serviceLatencyP99: round(percentile(service.latencies, 99)),
    addedLatencyP50: round(percentile(service.latencies, 50) - percentile(raw.latencies, 50)),
    addedLatencyP99: round(percentile(service.latencies, 99) - percentile(raw.latencies, 99)),
    rawCpu: raw.cpu,
    serviceCpu: service.cpu,
  };
  return result;
}

interface TimedRun {
  rate: number;
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
    const cpu = cpuWindow();
    const started = performance.now();
    const hashes: string[] = [];
    // Sent in nonce order without waiting for receipts: the pipelined baseline.
    for (const tx of signed) hashes.push(await provider.send('eth_sendRawTransaction', [tx]));
    await Promise.all(hashes.map((hash) => waitForReceipt(provider, hash)));
    const rate = (mints * 1000) / (performance.now() - started);
    const usage = cpuSummary(cpu.stop());

    let nonce = start + mints;
    const latencies = await runConcurrently(Math.min(mints, 100), 1, async () => {
      const tx = await sign(nonce++);
      await waitForReceipt(provider, await provider.send('eth_sendRawTransaction', [tx]));
    });
    return { rate, latencies, cpu: usage };
  } finally {
    provider.destroy();
    await anvil.stop();
  }
}

/** (b) the service, sync mode, 64 concurrent clients of one account. */
async function serviceMints(mints: number): Promise<TimedRun> {
  const stack = await startServiceStack({ env: { RATE_LIMIT_REQUESTS: '1000000' } });
  try {
    const { api, key } = await newAccountClient(stack.http);
    const collection = await serviceCollection(api);
    const load = new LoadClient(stack.http.baseUrl, { 'api-key': key }, CLIENTS);
    let failures = 0;
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
    load.close();
    if (failures) throw new Error(`${failures} service mints did not confirm in sync mode`);
    return { rate, latencies, cpu: usage };
  } finally {
    await stack.stop();
  }
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
