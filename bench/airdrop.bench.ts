/**
 * Airdrops: items/s of one airdrop request through the service against a raw script that mints
 * one item a transaction, on the realistic local chain as its preset stands (REALISTIC_CHAINS:
 * 1 s EVM blocks with anvil's default 30M block gas limit, not benchChain's 1e9, since the limit
 * is what packing is about; 400 ms Solana slots landing at slot end; 30 ms RPC round trip; the
 * preset's per-sender pending cap), measured from the first request to the last confirmation:
 *   evm-nft       N NFTs to distinct recipients: POST /nfts/{collection}/airdrop vs raw
 *                 `mint(to, uri)` per transaction (target >= 3x raw);
 *   evm-token     N amounts: POST /tokens/{mint}/airdrop vs raw `mint(to, amount)` (>= 2x);
 *   solana-token  N amounts of a Token-2022 mint: the airdrop route vs a raw web3.js/spl-token
 *                 script, one idempotent associated-account create and mintToChecked a
 *                 transaction (>= 2x).
 * Each case runs its raw script on fresh chains, then the service on a fresh stack (API and one
 * worker as their own processes), with the same chain flags.
 *
 * The raw EVM scripts sign every transaction before the clock starts (explicit nonces, the gas of
 * one estimate plus the service's 20% headroom) and keep as many pending as the node takes from
 * one sender: each time the mined nonce moves, one JSON-RPC batch sends the nonces the cap now
 * allows (all at once, in batches of 500, when the preset has no cap). The raw Solana script
 * runs as a child process (see airdrop-solana-raw.ts). Both are checked on chain afterwards
 * (items minted, supply), as the service's batch is (and its every entry confirmed).
 *
 * Prints, per run: items/s, transactions per item (service: distinct `tx` over the batch's
 * items; the chain's count of the sender's transactions beside it), gas per item on EVM (the
 * sender's receipts' gasUsed over the items), the sender's transactions per block (or slot) and
 * the blocks they spanned (on EVM with the base fee against the sender's fee caps, and for a short
 * span the sender's transactions block by block, so a block without them shows), and where the
 * CPU of this run's own processes went (stack-cpu.ts);
 * for the service also its carriers (from the database: how many, their sizes, failures) and
 * when each phase ended. Then the ratio of each case against its target.
 * Run: npm run bench:airdrop   (BENCH_AIRDROP_ITEMS=10000,
 *   BENCH_AIRDROP_CASES=evm-nft,evm-token,solana-token, BENCH_TIME_LIMIT_S=600 per run,
 *   BENCH_AIRDROP_SOLANA_IN_FLIGHT=128 raw Solana sends in flight, BENCH_AIRDROP_SENDER_CAP to
 *   replace the preset's per-sender cap, 0 for none)
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  Contract,
  ContractFactory,
  JsonRpcProvider,
  Wallet,
  getAddress,
  hexlify,
  parseEther,
  toBeHex,
  type BaseWallet,
} from 'ethers';
import { Client } from 'pg';
import { Connection, PublicKey } from '@solana/web3.js';
import {
  assetCollectionArtifact,
  assetTokenArtifact,
  ed25519Signer,
  newEd25519Seed,
} from '@app/chains';
import {
  REALISTIC_CHAINS,
  startLocalChains,
  type LocalChains,
  type LocalChainsOptions,
} from '@app/localnet';
import { batchItems } from '@test/support/airdrops';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { airdropAmount, type RawSolanaInput, type RawSolanaResult } from './airdrop-solana-raw';
import { cpuSummary } from './cpu-usage';
import {
  deployCollection,
  evmWalletOf,
  IMAGE,
  intFromEnv,
  RAW_PROVIDER_OPTIONS,
  serviceCollection,
  URI,
} from './evm-helpers';
import { LoadClient } from './load-client';
import { stackCpuWindow, type OwnProcesses } from './stack-cpu';
import { percentile, ratioAgainst, round } from './stats';

type CaseName = 'evm-nft' | 'evm-token' | 'solana-token';
const CASES: Record<CaseName, { target: number }> = {
  'evm-nft': { target: 3 },
  'evm-token': { target: 2 },
  'solana-token': { target: 2 },
};
const DECIMALS = 6;
const UNIT = 10n ** BigInt(DECIMALS);
/** The planner's gas headroom over an estimate (evm-planner.ts): the raw scripts use it too. */
const GAS_HEADROOM_PERCENT = 120n;
/** Raw EVM sends per JSON-RPC batch when the chain has no per-sender cap. */
const UNCAPPED_SEND_BATCH = 500;

export interface AirdropRun {
  case: CaseName;
  run: 'raw' | 'service';
  items: number;
  seconds: number;
  itemsPerSecond: number;
  /** Service: how long the API took to answer the request (202). */
  acceptSeconds?: number;
  confirmed: number;
  failed: number;
  /** Not settled when the run's time limit ended it (the rate then counts confirmed ones). */
  unsettled: number;
  /** Transactions that carried the items: distinct `tx` of the batch's items (service), N (raw). */
  transactions: number;
  txPerItem: number;
  /** The sender's mined transactions in the run's blocks, as the chain counts them (EVM). */
  chainTransactions?: number;
  /** The sender's receipts' gasUsed over the items (EVM). */
  gasPerItem?: number;
  /** The sender's transactions per block (or slot) that held any, mean/max, and the span. */
  perBlock: string;
  /** Service: its carriers (count, sizes, how many failed and were split). */
  carriers?: string;
  /** Service: a carrier's time from its first signature to its settlement (p50, p90). */
  carrierSignedToSettled?: string;
  /** Service: seconds from the request to the end of each phase (from the database). */
  phases?: string;
  /** CPU seconds of this run's own processes, and the machine's busy share (stack-cpu.ts). */
  cpu: string;
}

export interface AirdropCase {
  case: CaseName;
  serviceItemsPerSecond: number;
  rawItemsPerSecond: number;
  ratio: number;
  target: number;
  met: boolean;
  serviceTxPerItem: number;
  serviceGasPerItem?: number;
  rawGasPerItem?: number;
}

export interface AirdropResult {
  chain: string;
  items: number;
  runs: AirdropRun[];
  cases: AirdropCase[];
}

/**
 * The cap on one sender's pending transactions: the preset's, or `BENCH_AIRDROP_SENDER_CAP`
 * (0: none, so that the raw scripts are bound by the block's gas instead, as on a node that
 * takes everything one sender sends).
 */
function senderCap(): number {
  const override = process.env.BENCH_AIRDROP_SENDER_CAP;
  if (override !== undefined && override !== '') {
    const cap = Number(override);
    if (!Number.isInteger(cap) || cap < 0) {
      throw new Error('BENCH_AIRDROP_SENDER_CAP must be a whole number');
    }
    return cap;
  }
  return (REALISTIC_CHAINS as LocalChainsOptions).evmSenderPendingCap ?? 0;
}

/** The chains of every run: the preset, with the sender cap above. */
function chainOptions(): LocalChainsOptions {
  return { ...REALISTIC_CHAINS, evmSenderPendingCap: senderCap() };
}

function chainName(): string {
  const c = REALISTIC_CHAINS;
  const cap = senderCap();
  return (
    `realistic (${c.evmBlockTimeSeconds} s EVM blocks, 30M block gas, ${c.slotMs} ms slots, ` +
    `${c.rpcLatencyMs} ms RTT, ${cap ? `${cap} pending per sender` : 'no sender cap'})`
  );
}

export async function run(
  items = intFromEnv('BENCH_AIRDROP_ITEMS', 10_000),
): Promise<AirdropResult> {
  const names = (process.env.BENCH_AIRDROP_CASES ?? Object.keys(CASES).join(','))
    .split(',')
    .map((name) => name.trim()) as CaseName[];
  for (const name of names) if (!(name in CASES)) throw new Error(`unknown case ${name}`);
  const limitMs = intFromEnv('BENCH_TIME_LIMIT_S', 600) * 1000;
  const runs: AirdropRun[] = [];
  const cases: AirdropCase[] = [];
  for (const name of names) {
    const raw =
      name === 'solana-token'
        ? await rawSolana(items, limitMs)
        : await rawEvm(name, items, limitMs);
    runs.push(raw);
    console.error(`airdrop bench: ${JSON.stringify(raw)}`);
    const service =
      name === 'solana-token'
        ? await serviceSolana(items, limitMs)
        : await serviceEvm(name, items, limitMs);
    runs.push(service);
    console.error(`airdrop bench: ${JSON.stringify(service)}`);
    const { ratio, met } = ratioAgainst(
      service.itemsPerSecond,
      raw.itemsPerSecond,
      CASES[name].target,
    );
    cases.push({
      case: name,
      serviceItemsPerSecond: service.itemsPerSecond,
      rawItemsPerSecond: raw.itemsPerSecond,
      ratio,
      target: CASES[name].target,
      met: met && service.failed + service.unsettled === 0,
      serviceTxPerItem: service.txPerItem,
      ...(service.gasPerItem === undefined
        ? {}
        : { serviceGasPerItem: service.gasPerItem, rawGasPerItem: raw.gasPerItem }),
    });
  }
  return { chain: chainName(), items, runs, cases };
}

// ---------------------------------------------------------------------------------------------
// EVM

async function freshChains(): Promise<LocalChains> {
  return startLocalChains({ ...chainOptions(), evmPort: 0, solanaPort: 0, solanaWsPort: 0 });
}

function evmRecipients(count: number): string[] {
  return Array.from({ length: count }, () => getAddress(hexlify(randomBytes(20))));
}

async function deployToken(signer: BaseWallet): Promise<Contract> {
  const factory = new ContractFactory(assetTokenArtifact.abi, assetTokenArtifact.bytecode, signer);
  const contract = await factory.deploy('Raw', 'RAW', DECIMALS, UNIT, signer.address);
  await contract.waitForDeployment();
  return contract as Contract;
}

/** The raw script: one mint a transaction, pipelined under the sender cap. */
async function rawEvm(
  kind: 'evm-nft' | 'evm-token',
  items: number,
  limitMs: number,
): Promise<AirdropRun> {
  const chains = await freshChains();
  const provider = new JsonRpcProvider(chains.evmRpcUrl, undefined, RAW_PROVIDER_OPTIONS);
  try {
    const wallet = Wallet.createRandom(provider);
    await provider.send('anvil_setBalance', [wallet.address, toBeHex(parseEther('1000'))]);
    const contract =
      kind === 'evm-nft' ? await deployCollection(wallet) : await deployToken(wallet);
    const to = await contract.getAddress();
    const recipients = evmRecipients(items);
    const data = recipients.map((recipient, i) =>
      kind === 'evm-nft'
        ? contract.interface.encodeFunctionData('mint', [recipient, URI])
        : contract.interface.encodeFunctionData('mint', [
            recipient,
            BigInt(airdropAmount(i)) * UNIT,
          ]),
    );
    // Every recipient is fresh, so one estimate prices them all.
    const estimate = await provider.estimateGas({ from: wallet.address, to, data: data[0] });
    const gasLimit = (estimate * GAS_HEADROOM_PERCENT) / 100n;
    const fees = await provider.getFeeData();
    const maxPriorityFeePerGas = fees.maxPriorityFeePerGas;
    // Signed ahead, each with a fee cap the base fee cannot outrun in this run: blocks full of
    // these (no sender cap) raise it 12.5% a block, and the node's usual cap (twice the base fee)
    // would leave the later ones unminable. Only the base fee and the tip are paid.
    const maxFeePerGas = fees.maxFeePerGas! * 1000n;
    const { chainId } = await provider.getNetwork();
    const firstNonce = await provider.getTransactionCount(wallet.address, 'pending');
    const signed = await Promise.all(
      data.map((calldata, i) =>
        wallet.signTransaction({
          type: 2,
          chainId,
          to,
          data: calldata,
          nonce: firstNonce + i,
          gasLimit,
          maxFeePerGas,
          maxPriorityFeePerGas,
        }),
      ),
    );
    const fromBlock = (await provider.getBlockNumber()) + 1;
    const cap = senderCap();

    const cpu = stackCpuWindow({});
    const started = performance.now();
    const deadline = Date.now() + limitMs;
    let sent = 0;
    let mined = 0;
    while (mined < items && Date.now() < deadline) {
      const allowed = cap ? Math.min(items, mined + cap) : items;
      if (allowed > sent) {
        for (let i = sent; i < allowed; i += UNCAPPED_SEND_BATCH) {
          await sendBatch(
            chains.evmRpcUrl,
            signed.slice(i, Math.min(allowed, i + UNCAPPED_SEND_BATCH)),
          );
        }
        sent = allowed;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      mined = (await provider.getTransactionCount(wallet.address, 'latest')) - firstNonce;
    }
    const seconds = (performance.now() - started) / 1000;
    const usage = cpu.stop();

    const blocks = await blockFigures(chains.evmRpcUrl, wallet.address, fromBlock);
    // Every mined mint minted: the count on chain says so, not the nonce.
    const minted =
      kind === 'evm-nft'
        ? Number(await contract.getFunction('totalMinted').staticCall())
        : Number(
              ((await contract.getFunction('totalSupply').staticCall()) as bigint) / UNIT - 1n,
            ) === sumOfAmounts(items)
          ? items
          : -1;
    if (minted !== mined) {
      throw new Error(`raw ${kind}: ${mined} transactions mined but ${minted} items on chain`);
    }
    return {
      case: kind,
      run: 'raw',
      items,
      seconds: round(seconds),
      itemsPerSecond: round(mined / seconds),
      confirmed: mined,
      failed: blocks.reverted,
      unsettled: items - mined,
      transactions: items,
      txPerItem: 1,
      chainTransactions: blocks.transactions,
      gasPerItem: Math.round(Number(blocks.gasUsed) / items),
      perBlock: blocks.summary,
      cpu: cpuSummary(usage),
    };
  } finally {
    provider.destroy();
    await chains.stop();
  }
}

function sumOfAmounts(items: number): number {
  let sum = 0;
  for (let i = 0; i < items; i++) sum += airdropAmount(i);
  return sum;
}

async function sendBatch(url: string, txs: string[]): Promise<void> {
  const replies = await rpcBatch<string>(
    url,
    txs.map((tx) => ['eth_sendRawTransaction', [tx]]),
  );
  const refused = replies.find((reply) => reply.error);
  if (refused) throw new Error(`raw send refused: ${refused.error!.message}`);
}

async function rpcBatch<T>(
  url: string,
  calls: [string, unknown[]][],
): Promise<{ result?: T; error?: { message: string } }[]> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })),
    ),
  });
  const replies = (await response.json()) as {
    id: number;
    result?: T;
    error?: { message: string };
  }[];
  return replies.sort((a, b) => a.id - b.id);
}

interface BlockFigures {
  transactions: number;
  reverted: number;
  gasUsed: bigint;
  summary: string;
}

/**
 * The sender's transactions from `fromBlock` to the head, read from the blocks' receipts: how
 * many, their gas, and how they spread over blocks (with the blocks' fill by gas used).
 */
async function blockFigures(url: string, sender: string, fromBlock: number): Promise<BlockFigures> {
  const [head] = await rpcBatch<string>(url, [['eth_blockNumber', []]]);
  const toBlock = Number(head.result);
  const perBlock: { txs: number; gas: bigint; fill: number }[] = [];
  let transactions = 0;
  let reverted = 0;
  let gasUsed = 0n;
  let first: { number: number; time: number } | undefined;
  let last: { number: number; time: number } | undefined;
  // Base fees and our fee caps (gwei), and ours per block: is a block without ours priced out?
  const baseFees = new Map<number, number>();
  const caps: number[] = [];
  const oursIn = new Map<number, number>();
  const numbers = Array.from(
    { length: Math.max(0, toBlock - fromBlock + 1) },
    (_, i) => fromBlock + i,
  );
  for (let i = 0; i < numbers.length; i += 20) {
    const chunk = numbers.slice(i, i + 20);
    const calls: [string, unknown[]][] = chunk.flatMap((n): [string, unknown[]][] => [
      ['eth_getBlockReceipts', [toBeHex(n)]],
      ['eth_getBlockByNumber', [toBeHex(n), true]],
    ]);
    const replies = await rpcBatch<unknown>(url, calls);
    for (let j = 0; j < chunk.length; j++) {
      const receipts = replies[2 * j].result as { from: string; gasUsed: string; status: string }[];
      const block = replies[2 * j + 1].result as {
        gasUsed: string;
        gasLimit: string;
        timestamp: string;
        baseFeePerGas?: string;
        transactions: { from: string; maxFeePerGas?: string; gasPrice?: string }[];
      };
      baseFees.set(chunk[j], Number(block.baseFeePerGas ?? 0) / 1e9);
      const ours = receipts.filter((r) => r.from.toLowerCase() === sender.toLowerCase());
      oursIn.set(chunk[j], ours.length);
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== sender.toLowerCase()) continue;
        caps.push(Number(tx.maxFeePerGas ?? tx.gasPrice ?? 0) / 1e9);
      }
      if (ours.length === 0) continue;
      let gas = 0n;
      for (const receipt of ours) {
        gas += BigInt(receipt.gasUsed);
        if (receipt.status !== '0x1') reverted++;
      }
      transactions += ours.length;
      gasUsed += gas;
      perBlock.push({
        txs: ours.length,
        gas,
        fill: Number(block.gasUsed) / Number(block.gasLimit),
      });
      last = { number: chunk[j], time: Number(block.timestamp) };
      first ??= last;
    }
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const txs = perBlock.map((b) => b.txs);
  // The blocks from the first to the last holding ours, and the chain's seconds between them.
  const span = first && last ? last.number - first.number + 1 : 0;
  const interval = first && last && span > 1 ? (last.time - first.time) / (span - 1) : 0;
  const inSpan = first && last ? numbers.filter((n) => n >= first.number && n <= last.number) : [];
  const fees = inSpan.map((n) => baseFees.get(n)!);
  const gwei = (value: number) => (value >= 1 ? round(value, 2) : round(value, 4));
  // A short run's blocks one by one (ours in each): a hole shows where ours waited.
  const sequence =
    span <= 60 ? `; ours a block: ${inSpan.map((n) => oursIn.get(n)).join(' ')}` : '';
  return {
    transactions,
    reverted,
    gasUsed,
    summary:
      `${round(mean(txs), 1)}/${Math.max(0, ...txs)} txs in ${perBlock.length} of ${span} blocks ` +
      `(${round(interval, 2)} s apart), those ${Math.round(mean(perBlock.map((b) => b.fill)) * 100)}% full; ` +
      `base fee ${gwei(fees[0] ?? 0)}->${gwei(Math.max(0, ...fees))} gwei, ` +
      `our fee caps ${gwei(Math.min(...caps))}-${gwei(Math.max(0, ...caps))}${sequence}`,
  };
}

/** The service: one airdrop request, then the batch followed in the database until it closes. */
async function serviceEvm(
  kind: 'evm-nft' | 'evm-token',
  items: number,
  limitMs: number,
): Promise<AirdropRun> {
  return withStack(async (stack, db) => {
    const { api, key, account } = await newAccountClient(stack.http);
    const signer = evmWalletOf(account);
    const asset =
      kind === 'evm-nft' ? await serviceCollection(api) : await serviceToken(api, 'base');
    const recipients = evmRecipients(items);
    const provider = new JsonRpcProvider(stack.chains.evmRpcUrl, undefined, RAW_PROVIDER_OPTIONS);
    try {
      const fromBlock = (await provider.getBlockNumber()) + 1;
      const timed = await timedAirdrop(stack, db, key, kind, asset, recipients, limitMs);
      const blocks = await blockFigures(stack.chains.evmRpcUrl, signer, fromBlock);
      if (kind === 'evm-nft') {
        const collection = new Contract(asset, assetCollectionArtifact.abi, provider);
        const minted = Number(await collection.getFunction('totalMinted').staticCall());
        if (minted !== timed.confirmed) {
          throw new Error(`service: ${timed.confirmed} items confirmed, ${minted} on chain`);
        }
      } else {
        const token = new Contract(asset, assetTokenArtifact.abi, provider);
        const supply = (await token.getFunction('totalSupply').staticCall()) as bigint;
        if (timed.confirmed === items && supply !== (1n + BigInt(sumOfAmounts(items))) * UNIT) {
          throw new Error(`service: token supply ${supply} is not the airdrop's`);
        }
      }
      return {
        ...timed.run,
        chainTransactions: blocks.transactions,
        gasPerItem: Math.round(Number(blocks.gasUsed) / items),
        perBlock: blocks.summary,
      };
    } finally {
      provider.destroy();
    }
  });
}

async function serviceToken(api: HttpClient, network: string): Promise<string> {
  const created = await api.post('/tokens', {
    network,
    name: 'Drop',
    symbol: 'DRP',
    amount: 1,
    decimals: DECIMALS,
  });
  if (created.status !== 200) throw new Error(`token: ${JSON.stringify(created.body)}`);
  return created.body.data.mint_address as string;
}

async function withStack<T>(body: (stack: ServiceStack, db: Client) => Promise<T>): Promise<T> {
  const stack = await startServiceStack({
    chains: chainOptions(),
    env: { RATE_LIMIT_REQUESTS: '1000000', REGISTER_LIMIT_PER_IP: '1000/3600' },
  });
  const db = new Client({ connectionString: stack.env.DATABASE_URL });
  try {
    await db.connect();
    return await body(stack, db);
  } finally {
    await db.end().catch(() => undefined);
    await stack.stop();
  }
}

interface TimedAirdrop {
  run: AirdropRun;
  confirmed: number;
  /** The distinct transactions of the items. */
  txs: string[];
}

/**
 * Sends the airdrop and follows its batch until it closes: the clock runs from the request to
 * the batch's last settlement, as the database records it (polled every 100 ms).
 */
async function timedAirdrop(
  stack: ServiceStack,
  db: Client,
  key: string,
  kind: CaseName,
  asset: string,
  recipients: string[],
  limitMs: number,
): Promise<TimedAirdrop> {
  const items = recipients.length;
  const [path, body] =
    kind === 'evm-nft'
      ? [
          `/nfts/${asset}/airdrop`,
          {
            items: recipients.map((recipient, i) => ({
              recipient,
              name: `Drop #${i}`,
              images: [IMAGE],
            })),
          },
        ]
      : [
          `/tokens/${asset}/airdrop`,
          {
            ...(kind === 'solana-token' ? { network: 'solana' } : {}),
            recipients: recipients.map((recipient, i) => ({ recipient, amount: airdropAmount(i) })),
          },
        ];
  const load = new LoadClient(stack.http.baseUrl, { 'api-key': key }, 1);
  const own: OwnProcesses = {
    api: stack.api.process.pid,
    workers: stack.workers.map((worker) => worker.process.pid!),
    database: new URL(stack.env.DATABASE_URL).pathname.slice(1),
  };
  const cpu = stackCpuWindow(own);
  const startedAt = Date.now();
  const started = performance.now();
  const accepted = await load.post(path, body);
  const acceptSeconds = (performance.now() - started) / 1000;
  load.close();
  if (accepted.status !== 202) {
    throw new Error(`airdrop: ${accepted.status} ${JSON.stringify(accepted.body).slice(0, 500)}`);
  }
  const batchId = accepted.body.data.batch_id as string;
  const deadline = Date.now() + limitMs;
  for (;;) {
    const { rows } = await db.query<{ status: string }>(
      'SELECT status FROM batches WHERE id = $1',
      [batchId],
    );
    if (rows[0].status !== 'open' || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  const usage = cpu.stop();

  const { api } = { api: stack.http.with({ 'api-key': key }) };
  const entries = await batchItems(api, batchId);
  const confirmed = entries.filter((entry) => entry.status === 'confirmed').length;
  const failed = entries.filter((entry) => entry.status === 'failed').length;
  const txs = [...new Set(entries.flatMap((entry) => (entry.tx ? [entry.tx as string] : [])))];
  return {
    confirmed,
    txs,
    run: {
      case: kind,
      run: 'service',
      items,
      seconds: round(seconds),
      itemsPerSecond: round(confirmed / seconds),
      acceptSeconds: round(acceptSeconds, 2),
      confirmed,
      failed,
      unsettled: items - confirmed - failed,
      transactions: txs.length,
      txPerItem: round(txs.length / items, 4),
      perBlock: '',
      ...(await carrierFigures(db, batchId, startedAt)),
      cpu: cpuSummary(usage),
    },
  };
}

/** The batch's carriers and phases, from the database. */
async function carrierFigures(
  db: Client,
  batchId: string,
  startedAt: number,
): Promise<{ carriers: string; carrierSignedToSettled: string; phases: string }> {
  const { rows: carriers } = await db.query<{
    status: string;
    members: number;
    signedToSettledMs: number | null;
  }>(
    `SELECT c.status, count(m.id)::int AS members,
            extract(epoch FROM c.settled_at - (
              SELECT min(t.created_at) FROM operation_transactions l
                JOIN transactions t ON t.chain_key = l.chain_key AND t.tx_hash = l.tx_hash
               WHERE l.operation_id = c.id)) * 1000 AS "signedToSettledMs"
       FROM operations c LEFT JOIN operations m ON m.carrier_id = c.id
      WHERE c.batch_id = $1 AND c.batch_index IS NULL
      GROUP BY c.id, c.status`,
    [batchId],
  );
  const inFlight = carriers.flatMap((c) =>
    c.signedToSettledMs === null ? [] : [Number(c.signedToSettledMs)],
  );
  const sizes = carriers.filter((c) => c.status === 'confirmed').map((c) => c.members);
  const failedCarriers = carriers.filter((c) => c.status === 'failed').length;
  const [phase] = (
    await db.query<Record<string, Date | null>>(
      `SELECT b.created_at AS accepted,
              (SELECT max(created_at) FROM operations WHERE batch_id = $1 AND batch_index IS NULL) AS packed,
              (SELECT min(t.created_at) FROM operation_transactions l
                  JOIN transactions t ON t.chain_key = l.chain_key AND t.tx_hash = l.tx_hash
                  JOIN operations c ON c.id = l.operation_id AND l.item = 0
                WHERE c.batch_id = $1 AND c.batch_index IS NULL) AS first_signed,
              (SELECT max(t.created_at) FROM operation_transactions l
                  JOIN transactions t ON t.chain_key = l.chain_key AND t.tx_hash = l.tx_hash
                  JOIN operations c ON c.id = l.operation_id AND l.item = 0
                WHERE c.batch_id = $1 AND c.batch_index IS NULL) AS last_signed,
              (SELECT min(settled_at) FROM operations WHERE batch_id = $1 AND batch_index IS NOT NULL) AS first_settled,
              b.completed_at AS completed
         FROM batches b WHERE b.id = $1`,
      [batchId],
    )
  ).rows;
  const at = (name: string) => {
    const value = phase[name];
    return value ? `${name} ${round((value.getTime() - startedAt) / 1000, 1)}` : `${name} -`;
  };
  return {
    carriers:
      `${carriers.length} (${sizes.length ? `${Math.min(...sizes)}-${Math.max(...sizes)}` : '-'} items` +
      `${failedCarriers ? `; ${failedCarriers} failed, split` : ''})`,
    carrierSignedToSettled: inFlight.length
      ? `p50 ${round(percentile(inFlight, 50))} ms, p90 ${round(percentile(inFlight, 90))} ms`
      : '-',
    phases: ['accepted', 'packed', 'first_signed', 'last_signed', 'first_settled', 'completed']
      .map(at)
      .join(', '),
  };
}

// ---------------------------------------------------------------------------------------------
// Solana

async function rawSolana(items: number, limitMs: number): Promise<AirdropRun> {
  const chains = await freshChains();
  try {
    return await rawSolanaRun(chains, {
      rpcUrl: chains.solanaRpcUrl,
      items,
      inFlight: intFromEnv('BENCH_AIRDROP_SOLANA_IN_FLIGHT', 128),
      decimals: DECIMALS,
      // Its setup and the timed run, together.
      deadline: Date.now() + limitMs + 120_000,
    });
  } finally {
    await chains.stop();
  }
}

/** Runs the raw Solana child on `chains`; it times itself from its first send to its last landing. */
async function rawSolanaRun(chains: LocalChains, input: RawSolanaInput): Promise<AirdropRun> {
  const child = fork(join(__dirname, 'airdrop-solana-raw.ts'), [], {
    cwd: join(__dirname, '..'),
    execArgv: ['-r', '@swc-node/register'],
    env: { ...process.env, RAW_SOLANA_INPUT: JSON.stringify(input) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const messages = childMessages(child);
  try {
    await messages.next('ready');
    const cpu = stackCpuWindow({ scripts: [child.pid!] });
    child.send({ type: 'go' });
    const { result } = (await messages.next('done')) as { result: RawSolanaResult };
    const usage = cpu.stop();
    if (!result.supplyMatches && result.confirmed === input.items) {
      throw new Error('raw Solana: the mint supply is not the airdrop');
    }
    return {
      case: 'solana-token',
      run: 'raw',
      items: input.items,
      seconds: round(result.seconds),
      itemsPerSecond: round(result.confirmed / result.seconds),
      confirmed: result.confirmed,
      failed: result.failed,
      unsettled: result.unsettled,
      transactions: result.transactions,
      txPerItem: 1,
      perBlock:
        `${round(result.perSlotMean, 1)}/${result.perSlotMax} txs a slot, ` +
        `${result.slotSpan} slots`,
      cpu: cpuSummary(usage),
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** The child's IPC messages, awaited by type; an error message or an early exit rejects. */
function childMessages(child: ReturnType<typeof fork>): {
  next(type: string): Promise<Record<string, unknown>>;
} {
  const received: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let ended: Error | undefined;
  child.on('message', (message: Record<string, unknown>) => {
    received.push(message);
    waiters.splice(0).forEach((wake) => wake());
  });
  child.on('exit', (code) => {
    ended = new Error(`the raw Solana script exited (${code})`);
    waiters.splice(0).forEach((wake) => wake());
  });
  return {
    async next(type) {
      for (;;) {
        const error = received.find((m) => m.type === 'error');
        if (error) throw new Error(`raw Solana script: ${String(error.message)}`);
        const index = received.findIndex((m) => m.type === type);
        if (index >= 0) return received.splice(index, 1)[0];
        if (ended) throw ended;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

async function serviceSolana(items: number, limitMs: number): Promise<AirdropRun> {
  return withStack(async (stack, db) => {
    const { api, key } = await newAccountClient(stack.http);
    const mint = await serviceToken(api, 'solana');
    const recipients = Array.from({ length: items }, () => ed25519Signer(newEd25519Seed()).address);
    const timed = await timedAirdrop(stack, db, key, 'solana-token', mint, recipients, limitMs);
    const connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
    const slots = new Map<number, number>();
    for (let i = 0; i < timed.txs.length; i += 256) {
      const { value } = await connection.getSignatureStatuses(timed.txs.slice(i, i + 256), {
        searchTransactionHistory: true,
      });
      for (const status of value) {
        if (status) slots.set(status.slot, (slots.get(status.slot) ?? 0) + 1);
      }
    }
    const supply = await connection.getTokenSupply(new PublicKey(mint), 'confirmed');
    if (
      timed.confirmed === items &&
      BigInt(supply.value.amount) !== (1n + BigInt(sumOfAmounts(items))) * UNIT
    ) {
      throw new Error(`service: token supply ${supply.value.amount} is not the airdrop's`);
    }
    const landed = [...slots.keys()];
    const counts = [...slots.values()];
    return {
      ...timed.run,
      perBlock:
        `${round(counts.reduce((a, b) => a + b, 0) / Math.max(1, counts.length), 1)}/` +
        `${Math.max(0, ...counts)} txs a slot, ` +
        `${landed.length ? Math.max(...landed) - Math.min(...landed) + 1 : 0} slots`,
    };
  });
}

if (require.main === module) {
  run().then(
    (result) => {
      console.log(`Airdrops of ${result.items} items on a ${result.chain} chain:`);
      console.table(
        result.runs.map(
          ({
            carriers: _c,
            carrierSignedToSettled: _s,
            phases: _p,
            cpu: _u,
            perBlock: _b,
            ...figures
          }) => figures,
        ),
      );
      for (const r of result.runs) {
        console.log(`${r.case} ${r.run}: ${r.perBlock}`);
        if (r.carriers) console.log(`  carriers: ${r.carriers}`);
        if (r.carrierSignedToSettled) {
          console.log(`  a carrier, signed to settled: ${r.carrierSignedToSettled}`);
        }
        if (r.phases) console.log(`  phases (s from the request): ${r.phases}`);
        console.log(`  cpu: ${r.cpu}`);
      }
      console.table(result.cases);
      for (const c of result.cases) {
        console.log(
          `${c.case}: service/raw = ${c.ratio} (target >= ${c.target}) ${c.met ? 'met' : 'NOT MET'}`,
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
