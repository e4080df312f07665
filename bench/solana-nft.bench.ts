/**
 * Solana NFT items (Token-2022 group members with metadata): a raw web3.js script vs. the
 * service, in one run, against one fresh local validator.
 *   (a) raw: one wallet mints N items of one collection with web3.js (node:crypto signing,
 *       the same instructions as the service), 64 in flight, each sent and then confirmed by
 *       its signature status;
 *   (b) the service: 64 concurrent API clients of one account, sync mode (each request waits
 *       for on-chain confirmation), N items of one collection.
 * Both start after a warm-up of 64 items. Then the latency the service adds: the same two
 * paths one item at a time (p50, p99), and under load.
 * Run: npm run bench:solana   (BENCH_ITEMS=300, BENCH_CLIENTS=64, BENCH_SEQUENTIAL=50)
 */
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, getMint, getTokenGroupState } from '@solana/spl-token';
import {
  collectionCreateInstructions,
  ed25519Signer,
  itemMintInstructions,
  newEd25519Seed,
  signMessage,
  UNLIMITED_GROUP_SIZE,
  type Ed25519Signer,
  type RentOf,
} from '@app/chains';
import { newAccountClient, startServiceStack } from '@test/support/service-stack';
import { LoadClient } from './load-client';
import { percentile, round, runConcurrently } from './stats';

const URI = 'http://127.0.0.1:3000/metadata/00000000-0000-0000-0000-000000000000';
const IMAGE = 'https://example.com/item.png';
const TIMEOUT_MS = 10 * 60_000;

export interface SolanaNftBenchResult {
  items: number;
  clients: number;
  rawItemsPerSecond: number;
  serviceItemsPerSecond: number;
  ratio: number;
  /** One item at a time (no queueing): what the service adds to a raw mint. */
  rawLatencyP50: number;
  rawLatencyP99: number;
  serviceLatencyP50: number;
  serviceLatencyP99: number;
  addedLatencyP50: number;
  addedLatencyP99: number;
  /** Under load (`clients` in flight). */
  rawLoadedP50: number;
  rawLoadedP99: number;
  serviceLoadedP50: number;
  serviceLoadedP99: number;
}

interface Series {
  rate: number;
  latencies: number[];
}

export async function run(
  items = Number(process.env.BENCH_ITEMS ?? 300),
  clients = Number(process.env.BENCH_CLIENTS ?? 64),
  sequential = Number(process.env.BENCH_SEQUENTIAL ?? 50),
): Promise<SolanaNftBenchResult> {
  const stack = await startServiceStack({
    env: { RATE_LIMIT_REQUESTS: '10000000', LOG_LEVEL: 'warn' },
  });
  const deadline = setTimeout(() => {
    console.error(`solana-nft bench: still running after ${TIMEOUT_MS / 1000} s; giving up`);
    process.exit(2);
  }, TIMEOUT_MS);
  deadline.unref();
  try {
    const raw = await RawMinter.start(stack.chains.solanaRpcUrl);
    // A light client: it shares the bench's process with the local validator, and fetch's CPU
    // cost per request would be charged to the chain.
    const { key } = await newAccountClient(stack.http);
    const api = new LoadClient(stack.http.baseUrl, { 'api-key': key }, clients);
    const collection = await createCollection(api);
    const viaService = (i: number) => mintViaService(api, collection, i);

    await concurrently(clients, clients, (i) => raw.mint(`warm-up ${i}`));
    await concurrently(clients, clients, viaService);
    const rawLoaded = await concurrently(items, clients, (i) => raw.mint(`Item ${i}`));
    const serviceLoaded = await concurrently(items, clients, viaService);
    const rawAlone = await concurrently(sequential, 1, (i) => raw.mint(`Alone ${i}`));
    const serviceAlone = await concurrently(sequential, 1, viaService);

    api.close();
    // Every item landed as a member of its collection's group, and nothing more.
    const expected = BigInt(clients + items + sequential);
    for (const mint of [raw.collectionAddress, collection]) {
      const size = await groupSize(stack.chains.solanaRpcUrl, mint);
      if (size !== expected)
        throw new Error(`collection ${mint} has ${size} items, not ${expected}`);
    }
    const p = (series: Series, q: number) => round(percentile(series.latencies, q));
    return {
      items,
      clients,
      rawItemsPerSecond: round(rawLoaded.rate),
      serviceItemsPerSecond: round(serviceLoaded.rate),
      ratio: round(serviceLoaded.rate / rawLoaded.rate, 2),
      rawLatencyP50: p(rawAlone, 50),
      rawLatencyP99: p(rawAlone, 99),
      serviceLatencyP50: p(serviceAlone, 50),
      serviceLatencyP99: p(serviceAlone, 99),
      addedLatencyP50: round(p(serviceAlone, 50) - p(rawAlone, 50)),
      addedLatencyP99: round(p(serviceAlone, 99) - p(rawAlone, 99)),
      rawLoadedP50: p(rawLoaded, 50),
      rawLoadedP99: p(rawLoaded, 99),
      serviceLoadedP50: p(serviceLoaded, 50),
      serviceLoadedP99: p(serviceLoaded, 99),
    };
  } finally {
    clearTimeout(deadline);
    await stack.stop();
  }
}

/** What a developer would write with web3.js v1, with node:crypto signing. */
class RawMinter {
  private blockhash: {
    value: Promise<{ blockhash: string; lastValidBlockHeight: number }>;
    at: number;
  };

  private constructor(
    private readonly connection: Connection,
    private readonly payer: Ed25519Signer,
    private readonly collection: PublicKey,
    private readonly rentOf: RentOf,
    blockhash: { blockhash: string; lastValidBlockHeight: number },
  ) {
    this.blockhash = { value: Promise.resolve(blockhash), at: Date.now() };
  }

  static async start(rpcUrl: string): Promise<RawMinter> {
    const connection = new Connection(rpcUrl, { commitment: 'confirmed' });
    const payerKeypair = Keypair.generate();
    const airdrop = await connection.requestAirdrop(payerKeypair.publicKey, 100 * LAMPORTS_PER_SOL);
    await waitForStatus(connection, airdrop);
    const perByte = BigInt(await connection.getMinimumBalanceForRentExemption(0)) / 128n;
    const rentOf: RentOf = (length) => (128n + BigInt(length)) * perByte;
    const payer = ed25519Signer(payerKeypair.secretKey);
    const collection = ed25519Signer(newEd25519Seed());
    const latest = await connection.getLatestBlockhash();
    const instructions = collectionCreateInstructions({
      authority: payerKeypair.publicKey,
      mint: new PublicKey(collection.address),
      maxSize: UNLIMITED_GROUP_SIZE,
      metadata: { name: 'Raw collection', symbol: 'RAW', uri: URI },
      rentOf,
    });
    await send(connection, payerKeypair.publicKey, latest, instructions, [payer, collection]);
    return new RawMinter(connection, payer, new PublicKey(collection.address), rentOf, latest);
  }

  get collectionAddress(): string {
    return this.collection.toBase58();
  }

  async mint(name: string): Promise<void> {
    const item = ed25519Signer(newEd25519Seed());
    const payer = new PublicKey(this.payer.address);
    const instructions = itemMintInstructions({
      authority: payer,
      collection: this.collection,
      item: new PublicKey(item.address),
      recipient: payer,
      metadata: { name, symbol: 'RAW', uri: URI },
      rentOf: this.rentOf,
    });
    await send(this.connection, payer, await this.latestBlockhash(), instructions, [
      this.payer,
      item,
    ]);
  }

  /** One getLatestBlockhash a second, shared by every send (as a careful script would). */
  private latestBlockhash() {
    if (Date.now() - this.blockhash.at > 1_000) {
      this.blockhash = { value: this.connection.getLatestBlockhash(), at: Date.now() };
    }
    return this.blockhash.value;
  }
}

async function send(
  connection: Connection,
  payer: PublicKey,
  blockhash: { blockhash: string; lastValidBlockHeight: number },
  instructions: TransactionInstruction[],
  signers: Ed25519Signer[],
): Promise<void> {
  const message = new Transaction({ feePayer: payer, ...blockhash })
    .add(...instructions)
    .compileMessage();
  const { wire } = signMessage(message, signers);
  const signature = await connection.sendRawTransaction(wire, { maxRetries: 0 });
  await waitForStatus(connection, signature);
}

async function waitForStatus(connection: Connection, signature: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { value } = await connection.getSignatureStatus(signature);
    if (value?.err) throw new Error(`${signature} failed: ${JSON.stringify(value.err)}`);
    if (value?.confirmationStatus === 'confirmed' || value?.confirmationStatus === 'finalized') {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, attempt < 5 ? 5 : 50));
  }
  throw new Error(`${signature} not confirmed`);
}

async function groupSize(rpcUrl: string, mint: string): Promise<bigint> {
  const connection = new Connection(rpcUrl, { commitment: 'confirmed' });
  const info = await getMint(connection, new PublicKey(mint), 'confirmed', TOKEN_2022_PROGRAM_ID);
  return getTokenGroupState(info)?.size ?? -1n;
}

async function createCollection(api: LoadClient): Promise<string> {
  const response = await api.post('/nfts', {
    network: 'solana',
    name: 'Bench collection',
    symbol: 'BEN',
    description: 'benchmark',
    images: [IMAGE],
  });
  if (response.status !== 200) throw new Error(`collection: ${JSON.stringify(response.body)}`);
  return response.body.data.mint_address as string;
}

async function mintViaService(api: LoadClient, collection: string, i: number): Promise<void> {
  const response = await api.post(`/nfts/${collection}/mint`, {
    name: `Item ${i}`,
    images: [IMAGE],
  });
  if (response.status !== 200 || response.body.data.status !== 'confirmed') {
    throw new Error(`mint ${i}: ${response.status} ${JSON.stringify(response.body)}`);
  }
}

/** Runs `count` tasks, `parallel` at a time; the rate over the whole run, and each latency. */
async function concurrently(
  count: number,
  parallel: number,
  task: (i: number) => Promise<void>,
): Promise<Series> {
  const started = performance.now();
  const latencies = await runConcurrently(count, Math.min(parallel, count), task);
  return { rate: count / ((performance.now() - started) / 1000), latencies };
}

if (require.main === module) {
  run().then(
    (r) => {
      console.log(
        `solana-nft bench: ${r.items} items, ${r.clients} in flight, one fresh validator`,
      );
      console.log(`  raw web3.js script:   ${r.rawItemsPerSecond} items/s`);
      console.log(`  service (API, sync):  ${r.serviceItemsPerSecond} items/s`);
      console.log(`  ratio service/raw:    ${r.ratio} (target >= 0.5)`);
      console.log(
        `  one at a time, ms:    raw p50 ${r.rawLatencyP50} p99 ${r.rawLatencyP99}; ` +
          `service p50 ${r.serviceLatencyP50} p99 ${r.serviceLatencyP99}`,
      );
      console.log(`  service adds, ms:     p50 ${r.addedLatencyP50}, p99 ${r.addedLatencyP99}`);
      console.log(
        `  under load, ms:       raw p50 ${r.rawLoadedP50} p99 ${r.rawLoadedP99}; ` +
          `service p50 ${r.serviceLoadedP50} p99 ${r.serviceLoadedP99}`,
      );
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
