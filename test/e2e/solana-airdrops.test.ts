import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  getMint,
  getTokenGroupMemberState,
  getTokenGroupState,
} from '@solana/spl-token';
import { batchItems, settledBatch } from '@test/support/airdrops';
import { landedSolanaTransaction, queryDatabase } from '@test/support/chain-reads';
import { UUID, summary, type Data } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { waitForLogLine } from '@test/support/log-lines';
import { waitForExit } from '@test/support/operation-polling';
import { startOwnRedis, type OwnRedis } from '@test/support/own-redis';
import { freePort, type ServiceProcess } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { mintsAt, tokenBalances } from '@test/support/solana-airdrop-reads';
import { startFeeTraffic } from '@test/support/solana-fee-traffic';
import { startSolanaSendDropper, type SolanaSendDropper } from '@test/support/solana-send-dropper';

jest.setTimeout(240_000);

/**
 * Airdrops on Solana end to end (contract, "Airdrops"), read from the chain itself: a token
 * airdrop packs 10 mints into a transaction, an NFT airdrop mints each item as its own mint, and
 * every entry lands exactly once, also through a worker killed mid-batch, Redis flushed
 * mid-batch, sent transactions dropped by the cluster, and a priority-fee spike under which the
 * old price no longer lands.
 */

/** 50 ms slots: a blockhash is valid for 150 blocks (7.5 s), the fee window as long. */
const SLOT_MS = 50;
const FEE_WINDOW_MS = 150 * SLOT_MS;
const IMAGE = 'https://example.com/image.png';
/** Token mints one Solana transaction carries (tokenMintsPerTransaction). */
const MINTS_PER_TX = 10;
/** A fault's airdrop: 20 carriers, several in flight whenever it strikes. */
const FAULT_RECIPIENTS = 200;
/**
 * The spike's airdrop: 150 carriers, more than the account's 128 in flight (ACCOUNT_MAX_IN_FLIGHT),
 * so that some are signed after the spike. A fault's 20 are all signed within moments of their
 * packing, before the spike strikes.
 */
const SPIKE_RECIPIENTS = 1_500;
/** A fault's NFT airdrop beside it: items that each run alone, pipelined. */
const FAULT_ITEMS = 30;
/** What the service's wallet pays to land, then what the spike asks (micro-lamports a unit). */
const BUSY = 20_000;
const BUSIER = 60_000;

let redis: OwnRedis;
let dropper: SolanaSendDropper;
let stack: ServiceStack;
let connection: Connection;
let api: HttpClient;
let wallet: string;

beforeAll(async () => {
  // The service reaches the Solana RPC through a proxy that can drop what it sends; the test
  // reads the chain directly. Redis is the suite's own: it is flushed below.
  const solanaPort = await freePort();
  [redis, dropper] = await Promise.all([
    startOwnRedis(),
    startSolanaSendDropper(`http://127.0.0.1:${solanaPort}`),
  ]);
  stack = await startServiceStack({
    env: {
      RATE_LIMIT_REQUESTS: '100000',
      REDIS_URL: redis.url,
      LOCAL_SOLANA_RPC_URL: dropper.url,
      // A killed worker's shards are taken over after this; its job locks would last 30 s.
      LEASE_TTL_MS: '3000',
    },
    chains: { slotMs: SLOT_MS, solanaPort },
  });
  connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
  const client = await newAccountClient(stack.http);
  api = client.api;
  wallet = client.account.wallets.find((w) => w.network === 'solana')!.public_key;
});

afterAll(async () => {
  await stack?.stop();
  await Promise.all([dropper?.close(), redis?.stop()]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const recipients = (n: number): string[] =>
  Array.from({ length: n }, () => Keypair.generate().publicKey.toBase58());

async function created(path: string, body: Data): Promise<string> {
  const response = await api.post(path, body);
  expect(summary(response)).toMatchObject({ status: 200 });
  return response.body.data.mint_address as string;
}

const supplyOf = async (mint: string): Promise<bigint> =>
  (await getMint(connection, new PublicKey(mint), 'confirmed', TOKEN_2022_PROGRAM_ID)).supply;

const groupSize = async (collection: string): Promise<bigint> =>
  getTokenGroupState(
    await getMint(connection, new PublicKey(collection), 'confirmed', TOKEN_2022_PROGRAM_ID),
  )!.size!;

/** A token airdrop under way: what it asked for, and the supply before it. */
interface TokenDrop {
  id: string;
  mint: string;
  to: string[];
  /** Base units per recipient (2 decimals): index i gets (i + 1).5. */
  amounts: bigint[];
  supplyBefore: bigint;
}

/** A new token (2 decimals) of the suite's account. */
const newToken = (name: string): Promise<string> =>
  created('/tokens', { network: 'solana', name, symbol: 'PTS', amount: 1, decimals: 2 });

/** A new collection of the suite's account. */
const newCollection = (name: string): Promise<string> =>
  created('/nfts', {
    network: 'solana',
    name,
    description: 'an airdropped collection',
    images: [IMAGE],
  });

async function tokenAirdrop(n: number, name: string, token?: string): Promise<TokenDrop> {
  const mint = token ?? (await newToken(name));
  const supplyBefore = await supplyOf(mint);
  const to = recipients(n);
  const response = await api.post(`/tokens/${mint}/airdrop`, {
    recipients: to.map((recipient, i) => ({ recipient, amount: `${i + 1}.5` })),
  });
  expect(summary(response)).toMatchObject({ status: 202 });
  expect(response.body.data).toMatchObject({
    batch_id: expect.stringMatching(UUID),
    kind: 'token.airdrop',
    network: 'solana',
    asset: mint,
    total: n,
  });
  const amounts = to.map((_, i) => BigInt((i + 1) * 100 + 50));
  return { id: response.body.data.batch_id as string, mint, to, amounts, supplyBefore };
}

/** An NFT airdrop under way: its collection's group size before it. */
interface NftDrop {
  id: string;
  collection: string;
  to: string[];
  sizeBefore: bigint;
}

async function nftAirdrop(n: number, name: string, into?: string): Promise<NftDrop> {
  const collection = into ?? (await newCollection(name));
  const sizeBefore = await groupSize(collection);
  const to = recipients(n);
  const response = await api.post(`/nfts/${collection}/airdrop`, {
    items: to.map((recipient, i) => ({ recipient, name: `${name} #${i}`, images: [IMAGE] })),
  });
  expect(summary(response)).toMatchObject({ status: 202 });
  expect(response.body.data).toMatchObject({ kind: 'nft.airdrop', network: 'solana', total: n });
  return { id: response.body.data.batch_id as string, collection, to, sizeBefore };
}

/** Every distinct transaction among the entries landed, without error. */
async function expectLanded(items: Data[]): Promise<Set<string>> {
  const signatures = [...new Set(items.map((item) => item.tx as string))];
  for (let i = 0; i < signatures.length; i += 256) {
    const { value } = await connection.getSignatureStatuses(signatures.slice(i, i + 256), {
      searchTransactionHistory: true,
    });
    for (const status of value) expect(status).toMatchObject({ err: null });
  }
  return new Set(signatures);
}

/**
 * The batch completed with every entry confirmed, and the chain says each recipient holds
 * exactly its amount: their sum is all the supply grew by, so nothing was minted twice.
 * Returns the entries.
 */
async function expectTokensOnce(drop: TokenDrop, timeoutMs = 90_000): Promise<Data[]> {
  const n = drop.to.length;
  const batch = await settledBatch(api, drop.id, timeoutMs);
  expect(batch).toMatchObject({
    status: 'completed',
    counts: { queued: 0, submitted: 0, confirmed: n, failed: 0 },
    completed_at: expect.any(String),
  });
  const items = await batchItems(api, drop.id);
  expect(items.map((item) => item.index)).toEqual(drop.to.map((_, i) => i));
  for (const item of items) {
    expect(item).toMatchObject({
      recipient: drop.to[item.index],
      amount: `${item.index + 1}.5`,
      status: 'confirmed',
      error: null,
    });
  }
  expect(await tokenBalances(connection, drop.mint, drop.to)).toEqual(drop.amounts);
  const total = drop.amounts.reduce((sum, amount) => sum + amount, 0n);
  expect(await supplyOf(drop.mint)).toBe(drop.supplyBefore + total);
  const transactions = await expectLanded(items);
  // Mostly full carriers: a split or a re-packing after a fault adds only a few.
  expect(transactions.size).toBeGreaterThanOrEqual(Math.ceil(n / MINTS_PER_TX));
  expect(transactions.size).toBeLessThanOrEqual(Math.ceil(n / MINTS_PER_TX) + 5);
  return items;
}

/**
 * The batch completed with every item confirmed, each item a mint of its own in the collection's
 * group, supply 1, held by its recipient; the group grew by exactly the items.
 */
async function expectNftsOnce(drop: NftDrop, timeoutMs = 90_000): Promise<Data[]> {
  const n = drop.to.length;
  const batch = await settledBatch(api, drop.id, timeoutMs);
  expect(batch).toMatchObject({
    status: 'completed',
    counts: { queued: 0, submitted: 0, confirmed: n, failed: 0 },
  });
  const items = await batchItems(api, drop.id);
  expect(items.map((item) => item.index)).toEqual(drop.to.map((_, i) => i));
  for (const item of items) {
    expect(item).toMatchObject({
      recipient: drop.to[item.index],
      status: 'confirmed',
      mint_address: expect.any(String),
      error: null,
    });
  }
  const itemMints = items.map((item) => item.mint_address as string);
  expect(new Set(itemMints).size).toBe(n);
  const mints = await mintsAt(connection, itemMints);
  const memberNumbers = new Set<bigint>();
  for (const [i, mint] of mints.entries()) {
    expect(mint).toMatchObject({ decimals: 0, supply: 1n, mintAuthority: null });
    const member = getTokenGroupMemberState(mint);
    expect(member?.group?.toBase58()).toBe(drop.collection);
    expect(member?.mint?.toBase58()).toBe(itemMints[i]);
    memberNumbers.add(member!.memberNumber!);
  }
  // Each member number once, all of them the group's newest: no item made twice.
  expect(memberNumbers.size).toBe(n);
  for (const number of memberNumbers) {
    expect(number).toBeGreaterThan(drop.sizeBefore);
    expect(number).toBeLessThanOrEqual(drop.sizeBefore + BigInt(n));
  }
  expect(await groupSize(drop.collection)).toBe(drop.sizeBefore + BigInt(n));
  const held = await Promise.all(
    items.map(async (item) => {
      const [balance] = await tokenBalances(connection, item.mint_address as string, [
        drop.to[item.index],
      ]);
      return balance;
    }),
  );
  expect(held).toEqual(items.map(() => 1n));
  // Each item its own transaction.
  expect((await expectLanded(items)).size).toBe(n);
  return items;
}

/** Polls GET /batches/{id} until `when` holds (bounded): the batch as it then stood. */
async function batchWhen(id: string, when: (batch: Data) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = (await api.get(`/batches/${id}`)).body.data as Data;
    if (when(batch)) return batch;
    if (batch.status !== 'queued' && batch.status !== 'running') {
      throw new Error(`Batch ${id} settled before the fault: ${JSON.stringify(batch.counts)}`);
    }
    if (Date.now() > deadline) throw new Error(`Batch ${id}: ${JSON.stringify(batch.counts)}`);
    await sleep(20);
  }
}

/** Several carriers signed or sent and not confirmed, and entries still to go. */
const carriersInFlight = (batch: Data): boolean =>
  batch.counts.submitted >= 3 * MINTS_PER_TX && batch.counts.confirmed < batch.total / 2;

/** The batch's carriers by status, read from the database (the test's view of the fault). */
async function carrierStatuses(batchId: string): Promise<Record<string, number>> {
  const rows = await queryDatabase<{ status: string; n: number }>(
    stack.services.databaseUrl,
    `SELECT status, count(*)::int AS n FROM operations
     WHERE batch_id = $1 AND batch_index IS NULL GROUP BY status`,
    [batchId],
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

interface Signing {
  carrier: string;
  tx_hash: string;
  price: string | null;
}

/** Every transaction each carrier of the batch signed, oldest first. */
function carrierSignings(batchId: string): Promise<Signing[]> {
  return queryDatabase<Signing & Record<string, unknown>>(
    stack.services.databaseUrl,
    `SELECT ot.operation_id AS carrier, t.tx_hash, t.fees->>'computeUnitPriceMicroLamports' AS price
     FROM operation_transactions ot JOIN transactions t USING (chain_key, tx_hash)
     JOIN operations o ON o.id = ot.operation_id
     WHERE o.batch_id = $1 AND o.batch_index IS NULL AND ot.item = 0
     ORDER BY t.created_at`,
    [batchId],
  );
}

function signingsByCarrier(signings: Signing[]): Map<string, Signing[]> {
  const by = new Map<string, Signing[]>();
  for (const signing of signings) {
    by.set(signing.carrier, [...(by.get(signing.carrier) ?? []), signing]);
  }
  return by;
}

describe('token airdrop', () => {
  it('mints to 1,000 recipients exactly once, 10 a transaction', async () => {
    const drop = await tokenAirdrop(1_000, 'Points');
    const answeredAt = Date.now();
    const items = await expectTokensOnce(drop);
    // Packed as it was accepted: every carrier was written before the 202, with its entries.
    const [made] = await queryDatabase<{ carriers: number; last: Date }>(
      stack.services.databaseUrl,
      `SELECT count(*)::int AS carriers, max(created_at) AS last FROM operations
        WHERE batch_id = $1 AND batch_index IS NULL`,
      [drop.id],
    );
    expect(made.carriers).toBe(Math.ceil(1_000 / MINTS_PER_TX));
    expect(made.last.getTime()).toBeLessThanOrEqual(answeredAt);
    // 100 transactions for 1,000 entries: a carrier's transaction is each of its members' tx.
    expect(new Set(items.map((item) => item.tx)).size).toBeLessThanOrEqual(
      1_000 / MINTS_PER_TX + 3,
    );

    // Each entry is an operation of its own, readable as a single mint.
    const sample = items[456];
    const operation = await api.get(`/operations/${sample.operation_id}`);
    expect(operation.body.data).toMatchObject({
      status: 'confirmed',
      kind: 'token.mint',
      tx: sample.tx,
    });
    // Its carrier's transaction minted it, beside 8 others.
    const landed = await connection.getTransaction(sample.tx as string, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    const minted = (landed?.meta?.postTokenBalances ?? []).filter(
      (balance) => balance.mint === drop.mint && balance.owner !== wallet,
    );
    expect(minted.map((balance) => balance.owner)).toContain(drop.to[456]);
    expect(minted.length).toBeLessThanOrEqual(MINTS_PER_TX);

    const completed = (await allEvents()).filter(
      (event) => event.type === 'batch.completed' && event.data.batch_id === drop.id,
    );
    expect(completed.map((event) => event.data)).toEqual([
      expect.objectContaining({ status: 'completed', total: 1_000 }),
    ]);
  });
});

describe('NFT airdrop', () => {
  it('mints 500 items to 500 recipients exactly once, each a mint of its own in the collection', async () => {
    const drop = await nftAirdrop(500, 'Drop');
    const items = await expectNftsOnce(drop, 150_000);
    const sample = items[123];
    const operation = await api.get(`/operations/${sample.operation_id}`);
    expect(operation.body.data).toMatchObject({
      status: 'confirmed',
      kind: 'nft.mint',
      tx: sample.tx,
      mint_address: sample.mint_address,
    });
  });
});

describe('an airdrop through faults', () => {
  it('lands once when the worker is SIGKILLed mid-batch and a new one takes over', async () => {
    const [tokens, nfts] = await Promise.all([
      tokenAirdrop(FAULT_RECIPIENTS, 'Killed'),
      nftAirdrop(FAULT_ITEMS, 'Killed'),
    ]);
    await batchWhen(tokens.id, carriersInFlight);
    // Killed while packing, it may leave a carrier stored but never queued: that one waits for
    // the reconciler (RECONCILE_AFTER_MS, 30 s), within the settle time allowed here.
    const [worker] = stack.workers.splice(0);
    worker.process.kill('SIGKILL');
    await waitForExit(worker);
    expect(worker.process.signalCode).toBe('SIGKILL');
    // What the dead worker left: several carriers in flight and entries still to go.
    const left = await carrierStatuses(tokens.id);
    expect((left.signed ?? 0) + (left.submitted ?? 0) + (left.queued ?? 0)).toBeGreaterThan(1);

    const successor = await stack.startWorker();
    await expectTokensOnce(tokens);
    await expectNftsOnce(nfts);
    // Logged once it holds shards of every network: the batch may land before the last of them.
    await waitForLogLine(successor, (line) => /^Took shards/.test(String(line.msg)), 30_000);
  });

  it('lands once when Redis forgets every job mid-batch', async () => {
    const [token, collection] = await Promise.all([
      newToken('Forgotten'),
      newCollection('Forgotten'),
    ]);
    // Nothing lands until the jobs are gone: every carrier and item still needs its job then.
    dropper.drop(() => true);
    let tokens: TokenDrop;
    let nfts: NftDrop;
    try {
      [tokens, nfts] = await Promise.all([
        tokenAirdrop(FAULT_RECIPIENTS, 'Forgotten', token),
        nftAirdrop(FAULT_ITEMS, 'Forgotten', collection),
      ]);
      await batchWhen(tokens.id, carriersInFlight);
      await redis.flushAll();
      const left = await carrierStatuses(tokens.id);
      expect((left.signed ?? 0) + (left.submitted ?? 0) + (left.queued ?? 0)).toBeGreaterThan(1);
      // Not what RECONCILE_AFTER_MS (30 s) re-queues: the loss itself is seen, the jobs put back.
      await outputUntil(/Redis lost its jobs: re-enqueued [1-9]\d* unsettled/, 20_000);
    } finally {
      dropper.drop(null);
    }
    await expectTokensOnce(tokens);
    await expectNftsOnce(nfts);
  });

  it('lands once when the cluster drops what it was sent: re-sent, or signed anew after expiry', async () => {
    const [token, collection] = await Promise.all([newToken('Dropped'), newCollection('Dropped')]);
    // Every transaction's first send vanishes (the node said yes); the first three carriers'
    // transactions vanish every time, until their blockhash expires.
    const doomed = new Set<string>();
    dropper.drop(({ signature, earlierSends, accountKeys }) => {
      if (doomed.size < 3 && earlierSends === 0 && accountKeys.includes(token)) {
        doomed.add(signature);
      }
      return earlierSends === 0 || doomed.has(signature);
    });
    try {
      const [tokens, nfts] = await Promise.all([
        tokenAirdrop(FAULT_RECIPIENTS, 'Dropped', token),
        nftAirdrop(FAULT_ITEMS, 'Dropped', collection),
      ]);
      await expectTokensOnce(tokens);
      await expectNftsOnce(nfts);

      const signings = await carrierSignings(tokens.id);
      const landed = new Set((await batchItems(api, tokens.id)).map((item) => item.tx as string));
      // Every carrier's first transaction was dropped once, then re-sent: most landed as signed.
      const dropped = dropper.droppedSignatures();
      for (const signing of signings) expect(dropped).toContain(signing.tx_hash);
      // The doomed ones never landed; their carriers were signed anew and landed once.
      const resigned = [...signingsByCarrier(signings).values()].filter((list) => list.length > 1);
      expect(resigned.map((list) => list[0].tx_hash).sort()).toEqual([...doomed].sort());
      for (const list of resigned) {
        const last = list[list.length - 1];
        expect(landed).toContain(last.tx_hash);
        for (const earlier of list.slice(0, -1)) {
          expect(landed).not.toContain(earlier.tx_hash);
          const { value } = await connection.getSignatureStatus(earlier.tx_hash, {
            searchTransactionHistory: true,
          });
          expect(value).toBeNull();
        }
      }
    } finally {
      dropper.drop(null);
    }
  });

  it('lands once through a priority-fee spike: what no longer lands is signed anew at the new price', async () => {
    const contention = await startFeeTraffic(connection, BUSY, new PublicKey(wallet));
    try {
      // Until every slot of the window the node reports has seen the traffic.
      await sleep(FEE_WINDOW_MS + 1_000);
      const tokens = await tokenAirdrop(SPIKE_RECIPIENTS, 'Spiked');
      await batchWhen(tokens.id, carriersInFlight);
      // The spike: the others pay more, and what pays less than they do no longer lands.
      contention.setPrice(BUSIER);
      dropper.drop(({ computeUnitPrice }) => (computeUnitPrice ?? 0) < BUSIER);
      const spikedAt = await carrierStatuses(tokens.id);
      expect((spikedAt.signed ?? 0) + (spikedAt.submitted ?? 0)).toBeGreaterThan(1);

      const items = await expectTokensOnce(tokens, 120_000);
      const signings = await carrierSignings(tokens.id);
      const landed = new Set(items.map((item) => item.tx as string));
      const repriced = [...signingsByCarrier(signings).values()].filter((list) => list.length > 1);
      expect(repriced.length).toBeGreaterThanOrEqual(2);
      for (const list of repriced) {
        expect(Number(list[0].price)).toBe(BUSY);
        const last = list[list.length - 1];
        expect(Number(last.price)).toBe(BUSIER);
        expect(landed).toContain(last.tx_hash);
        for (const earlier of list.slice(0, -1)) expect(landed).not.toContain(earlier.tx_hash);
      }
      // What landed paid the old price before the spike, the new one after: nothing in between.
      for (const signature of landed) {
        const price = (await landedSolanaTransaction(connection, signature)).computeUnitPrice;
        expect([BUSY, BUSIER]).toContain(price);
      }
    } finally {
      dropper.drop(null);
      await contention.stop();
    }
  });
});

/** The suite account's whole event feed, page after page. */
async function allEvents(): Promise<Data[]> {
  const events: Data[] = [];
  for (let after = 0; ;) {
    const page = (await api.get(`/events?limit=1000&after=${after}`)).body.data as Data;
    events.push(...(page.events as Data[]));
    if (!page.has_more) return events;
    after = page.next_after as number;
  }
}

/** Everything the workers of this suite printed, the killed one's included. */
function workerOutput(): string {
  return stack.workers.map((worker: ServiceProcess) => worker.output()).join('\n');
}

async function outputUntil(pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(workerOutput())) {
    if (Date.now() > deadline) throw new Error(`The workers never said ${pattern}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
