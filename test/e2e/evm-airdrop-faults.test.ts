import Redis from 'ioredis';
import { Contract, Wallet, type JsonRpcProvider } from 'ethers';
import { assetCollectionArtifact, assetTokenArtifact } from '@app/chains';
import { batchItems, settledBatch } from '@test/support/airdrops';
import { evmReader, queryDatabase } from '@test/support/chain-reads';
import { setEvmBalance } from '@test/support/chain-control';
import { summary, type Data } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { waitForExit } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(240_000);

const IMAGE = 'https://example.com/image.png';
const GWEI = 10n ** 9n;
const SPIKE_BASE_FEE = 100n * GWEI;
const ITEMS = 120;
const FUNDED = 10n ** 22n;

/**
 * An EVM airdrop's carriers (each one transaction minting many entries) through what a public
 * chain and a crash do to single writes: a base-fee spike that forces their replacement, a node
 * that drops them, a worker SIGKILLed and Redis flushed while they wait unmined. Every entry lands
 * exactly once (read from the chain), in a handful of transactions; and a carrier that reverts
 * is split until the one bad entry fails alone. Carriers the chain refuses for their wallet's
 * funds fail with their entries, and none of those is left waiting.
 */
describe('EVM airdrops through faults', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;

  beforeAll(async () => {
    stack = await startServiceStack({
      evmRecorder: true,
      env: {
        EVM_REPLACE_AFTER_MS: '1500',
        REBROADCAST_AFTER_MS: '1000',
        // About 25 items a carrier on a 30M-gas block: several carriers in flight at once.
        AIRDROP_BLOCK_GAS_PERCENT: '4',
        LEASE_TTL_MS: '2000',
        RECONCILE_AFTER_MS: '600000',
        RATE_LIMIT_REQUESTS: '100000',
      },
    });
    provider = evmReader(stack.chains.evmRpcUrl);
    ({ api } = await newAccountClient(stack.http));
  });

  afterEach(async () => {
    await provider.send('evm_setIntervalMining', [0]);
    await provider.send('evm_setAutomine', [true]);
  });

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  const db = () => stack.services.databaseUrl;

  async function newCollection(name: string): Promise<Contract> {
    const response = await api.post('/nfts', {
      network: 'base',
      name,
      symbol: 'FLT',
      description: 'Airdrops through faults',
      images: [IMAGE],
    });
    expect(summary(response)).toMatchObject({ status: 200 });
    return new Contract(response.body.data.mint_address, assetCollectionArtifact.abi, provider);
  }

  /** An NFT airdrop sent while nothing is mined: its carriers wait in the node's pool. */
  async function unminedAirdrop(
    collection: Contract,
  ): Promise<{ id: string; to: string[]; carriers: string[] }> {
    await provider.send('evm_setAutomine', [false]);
    await provider.send('evm_setIntervalMining', [0]);
    const to = Array.from({ length: ITEMS }, () => Wallet.createRandom().address);
    const response = await api.post(`/nfts/${await collection.getAddress()}/airdrop`, {
      items: to.map((recipient, i) => ({ recipient, name: `Item ${i}`, images: [IMAGE] })),
    });
    expect(summary(response)).toMatchObject({ status: 202 });
    const id = response.body.data.batch_id as string;
    const carriers = await carriersSubmitted(id);
    expect(carriers.length).toBeGreaterThanOrEqual(3);
    return { id, to, carriers };
  }

  /** The batch's carriers once all of them wait on the node (every entry packed and sent). */
  async function carriersSubmitted(batchId: string): Promise<string[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows = await queryDatabase<{ id: string; status: string; carried: number }>(
        db(),
        `SELECT c.id, c.status, (SELECT count(*)::int FROM operations m WHERE m.carrier_id = c.id)
           AS carried
         FROM operations c WHERE c.batch_id = $1 AND c.batch_index IS NULL`,
        [batchId],
      );
      const carried = rows.reduce((sum, row) => sum + row.carried, 0);
      if (carried === ITEMS && rows.every((row) => row.status === 'submitted')) {
        return rows.map((row) => row.id);
      }
      if (Date.now() > deadline) throw new Error(`Carriers not all sent: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async function carrierTx(id: string): Promise<string> {
    const [row] = await queryDatabase<{ tx_hash: string }>(
      db(),
      'SELECT tx_hash FROM operations WHERE id = $1',
      [id],
    );
    return row.tx_hash;
  }

  /** Every entry confirmed once: its token held by its recipient, none minted twice. */
  async function expectLandedOnce(collection: Contract, batchId: string, to: string[]) {
    const batch = await settledBatch(api, batchId, 120_000);
    expect(batch).toMatchObject({ status: 'completed', counts: { confirmed: ITEMS, failed: 0 } });
    expect(await collection.getFunction('totalMinted').staticCall()).toBe(BigInt(ITEMS));
    const items = await batchItems(api, batchId);
    for (const item of items) {
      expect(await collection.getFunction('ownerOf').staticCall(item.token_id)).toBe(
        to[item.index],
      );
    }
    const txs = new Set(items.map((item: Data) => item.tx as string));
    for (const tx of txs) expect((await provider.getTransactionReceipt(tx))?.status).toBe(1);
    expect(txs.size).toBeLessThan(ITEMS / 10);
    return items;
  }

  it('replaces carriers outbid by a base-fee spike, each entry minted once', async () => {
    const collection = await newCollection('Spike');
    const { id, to, carriers } = await unminedAirdrop(collection);
    const first = await Promise.all(carriers.map(carrierTx));
    await provider.send('anvil_setNextBlockBaseFeePerGas', ['0x' + SPIKE_BASE_FEE.toString(16)]);
    await provider.send('evm_setIntervalMining', [1]);

    const items = await expectLandedOnce(collection, id, to);
    // The carriers landed as replacements: none of their first versions was mined.
    const landed = new Set(items.map((item: Data) => item.tx as string));
    expect(first.filter((tx) => landed.has(tx))).toEqual([]);
  });

  it('re-sends carriers the node dropped from its pool', async () => {
    const collection = await newCollection('Dropped');
    const { id, to, carriers } = await unminedAirdrop(collection);
    for (const carrier of carriers) {
      await provider.send('anvil_dropTransaction', [await carrierTx(carrier)]);
    }
    await provider.send('evm_setIntervalMining', [1]);
    await expectLandedOnce(collection, id, to);
  });

  it('finishes the batch after its worker is SIGKILLed mid-batch', async () => {
    const collection = await newCollection('Killed');
    const { id, to } = await unminedAirdrop(collection);
    const worker = stack.workers[0];
    stack.workers.splice(0, 1);
    worker.process.kill('SIGKILL');
    await waitForExit(worker);
    await provider.send('evm_setIntervalMining', [1]);
    await stack.startWorker();
    await expectLandedOnce(collection, id, to);
  });

  it('finishes the batch after Redis forgets every job', async () => {
    const collection = await newCollection('Forgotten');
    const { id, to } = await unminedAirdrop(collection);
    const redis = new Redis(stack.services.redisUrl);
    try {
      await redis.flushall();
    } finally {
      redis.disconnect();
    }
    await provider.send('evm_setIntervalMining', [1]);
    await expectLandedOnce(collection, id, to);
  });

  it('splits a reverted carrier until its one bad entry fails alone', async () => {
    const created = await api.post('/tokens', {
      network: 'base',
      name: 'Overflow',
      symbol: 'OVF',
      amount: 1,
      decimals: 0,
    });
    const token = new Contract(created.body.data.mint_address, assetTokenArtifact.abi, provider);
    // Two halves of 2^256 overflow the supply together: whichever comes second reverts.
    const half = (2n ** 255n).toString();
    const to = Array.from({ length: 40 }, () => Wallet.createRandom().address);
    const amounts = to.map((_, i) => (i === 5 || i === 30 ? half : String(i + 1)));
    const response = await api.post(`/tokens/${await token.getAddress()}/airdrop`, {
      recipients: to.map((recipient, i) => ({ recipient, amount: amounts[i] })),
    });
    expect(summary(response)).toMatchObject({ status: 202 });
    const batch = await settledBatch(api, response.body.data.batch_id, 120_000);
    expect(batch).toMatchObject({
      status: 'completed_with_failures',
      counts: { confirmed: 39, failed: 1 },
    });
    // Whichever of the two halves was minted second is the one that failed.
    const failed = await batchItems(api, batch.batch_id, '&status=failed');
    expect(failed).toHaveLength(1);
    const bad = failed[0].index as number;
    expect([5, 30]).toContain(bad);
    expect(failed[0].error.message).toMatch(/overflow|panic|revert/i);
    for (const [i, recipient] of to.entries()) {
      const balance = (await token.getFunction('balanceOf').staticCall(recipient)) as bigint;
      expect(balance).toBe(i === bad ? 0n : BigInt(amounts[i]));
    }
  });

  it('fails the entries of carriers the chain refuses for funds, leaving none behind', async () => {
    const collection = await newCollection('Drained');
    const to = Array.from({ length: ITEMS }, () => Wallet.createRandom().address);
    // The wallet is emptied after the service read its balance, before its carriers arrive.
    const drained = stack.evmRecorder!.drainSenderOnNextSend();
    const response = await api.post(`/nfts/${await collection.getAddress()}/airdrop`, {
      items: to.map((recipient, i) => ({ recipient, name: `Item ${i}`, images: [IMAGE] })),
    });
    expect(summary(response)).toMatchObject({ status: 202 });
    const wallet = await drained;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await setEvmBalance(stack.chains.evmRpcUrl, wallet, FUNDED);

    const batch = await settledBatch(api, response.body.data.batch_id, 120_000);
    expect(batch.status).toBe('completed_with_failures');
    expect(batch.counts.confirmed + batch.counts.failed).toBe(ITEMS);
    const items = await batchItems(api, batch.batch_id);
    const failed = items.filter((item: Data) => item.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const item of failed) {
      expect(item.error).toMatchObject({ error: 'Insufficient funds' });
      expect(await collection.getFunction('balanceOf').staticCall(to[item.index])).toBe(0n);
    }
    const confirmed = items.filter((item: Data) => item.status === 'confirmed');
    for (const item of confirmed) {
      expect(await collection.getFunction('ownerOf').staticCall(item.token_id)).toBe(
        to[item.index],
      );
    }
    expect(await collection.getFunction('totalMinted').staticCall()).toBe(BigInt(confirmed.length));
  });
});
