import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { Transaction, type JsonRpcProvider } from 'ethers';
import { collectionAt, evmReader } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { operationRow, waitForExit, waitForStatus } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { createBaseCollection, mintAsync } from '@test/support/nft-requests';

jest.setTimeout(180_000);

interface SignedRow {
  status: string;
  signed_tx: string;
}

/**
 * A node mines a wallet's transactions only in nonce order: one missing from its pool holds back
 * every later one. Here the missing transaction's own job cannot send it again (the job is lost
 * and the reconciler is minutes away), so only the later operation's wait can close the gap.
 */
describe('EVM nonce gaps', () => {
  let stack: ServiceStack;
  let api: HttpClient;
  let provider: JsonRpcProvider;
  let wallet: string;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      workers: 1,
      env: { JOB_LOCK_MS: '1000', RECONCILE_AFTER_MS: '600000', EVM_REPLACE_AFTER_MS: '2000' },
    });
    provider = evmReader(stack.chains.evmRpcUrl);
    const client = await newAccountClient(stack.http);
    api = client.api;
    wallet = client.account.wallets.find((w) => w.network === 'evm')!.public_key;
    collection = await createBaseCollection(api, 'Gaps', 'nonce gaps');
  });

  // A priced-out case leaves the base fee up: the next case starts from the usual one.
  afterEach(async () => {
    const { baseFeePerGas } = (await provider.getBlock(0))!;
    await provider.send('anvil_setNextBlockBaseFeePerGas', [`0x${baseFeePerGas!.toString(16)}`]);
    await provider.send('evm_mine', []);
  });

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  const queueMint = (name: string): Promise<string> => mintAsync(api, collection, name);

  /** Deletes an operation's job, as a flushed key would (once its dead worker's lock lapsed). */
  async function loseJob(operationId: string): Promise<void> {
    const redis = new Redis(stack.services.redisUrl);
    const prefix = stack.env.QUEUE_PREFIX;
    try {
      const [key] = await redis.keys(`${prefix}:{operations-base-*}:${operationId}`);
      expect(key).toBeDefined();
      const queueName = key.slice(prefix.length + 1, key.lastIndexOf(':'));
      const queue = new Queue(queueName, { connection: redis, prefix });
      const deadline = Date.now() + 10_000;
      while ((await queue.remove(operationId)) !== 1) {
        if (Date.now() > deadline) throw new Error(`job ${operationId} still locked`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await queue.close();
    } finally {
      redis.disconnect();
    }
  }

  /**
   * Two mints reach the node's pool (nothing is mined meanwhile); the worker dies; the node drops
   * the first, and the first's job is lost, or not. Priced out: the node will not take the
   * first's bytes back either, the base fee having passed their fee cap (with no block mined,
   * it stays there). Then a worker starts again.
   */
  async function dropFirstOfTwo(options: { loseFirstJob: boolean; pricedOut: boolean }) {
    const db = stack.services.databaseUrl;
    const before = {
      minted: (await collectionAt(provider, collection).totalMinted()) as bigint,
      nonce: await provider.getTransactionCount(wallet, 'latest'),
    };
    await provider.send('evm_setAutomine', [false]);
    await provider.send('evm_setIntervalMining', [0]);
    const queued = [await queueMint('one'), await queueMint('two')];
    const sent = await Promise.all(queued.map((id) => waitForStatus(db, id, 'submitted')));
    // Two queued operations carry no order between them: the worker may take the later one's
    // nonce first. "first" is the one with the lower nonce, the one that holds the other back.
    const [firstIndex, secondIndex] =
      Number(sent[0].nonce) < Number(sent[1].nonce) ? [0, 1] : [1, 0];
    const [first, second] = [queued[firstIndex], queued[secondIndex]];
    const [sentFirst, sentSecond] = [sent[firstIndex], sent[secondIndex]];
    expect(Number(sentSecond.nonce)).toBe(Number(sentFirst.nonce) + 1);

    const [worker] = stack.workers.splice(0);
    worker.process.kill('SIGKILL');
    await waitForExit(worker);
    await provider.send('anvil_dropTransaction', [sentFirst.tx_hash]);
    if (options.loseFirstJob) await loseJob(first);
    if (options.pricedOut) {
      const stored = Transaction.from((await operationRow<SignedRow>(db, first)).signed_tx);
      const feeCap = stored.maxFeePerGas ?? stored.gasPrice!;
      await provider.send('anvil_setNextBlockBaseFeePerGas', [`0x${(feeCap * 2n).toString(16)}`]);
      await provider.send('evm_mine', []);
    } else {
      await provider.send('evm_setIntervalMining', [1]);
    }
    await provider.send('evm_setAutomine', [true]);

    const restarted = await stack.startWorker();
    return { db, before, first, second, sentFirst, sentSecond, restarted };
  }

  it("sends a dropped transaction again from a later one's wait when its own job is lost", async () => {
    const { db, before, second, sentFirst, sentSecond, restarted } = await dropFirstOfTwo({
      loseFirstJob: true,
      pricedOut: false,
    });

    const confirmed = await waitForStatus(db, second, 'confirmed', 30_000);
    expect(confirmed.tx_hash).toBe(sentSecond.tx_hash);
    // The first one's stored bytes were sent again: the same transaction, mined once.
    expect((await provider.getTransactionReceipt(sentFirst.tx_hash!))?.status).toBe(1);
    expect(await provider.getTransactionCount(wallet, 'latest')).toBe(before.nonce + 2);
    expect(await collectionAt(provider, collection).totalMinted()).toBe(before.minted + 2n);
    expect(restarted.output()).toContain(`Nonce gap of ${wallet}`);
  });

  it('signs a gap it cannot close with the stored bytes again, at fees the node takes', async () => {
    const { db, before, first, second, sentFirst, sentSecond, restarted } = await dropFirstOfTwo({
      loseFirstJob: true,
      pricedOut: true,
    });

    const confirmed = await waitForStatus(db, second, 'confirmed', 60_000);
    expect(confirmed.nonce).toBe(sentSecond.nonce);
    // The first operation's nonce was signed again and that version was mined: once.
    const resigned = await waitForStatus(db, first, 'signed');
    expect(resigned.nonce).toBe(sentFirst.nonce);
    expect(resigned.tx_hash).not.toBe(sentFirst.tx_hash);
    expect((await provider.getTransactionReceipt(resigned.tx_hash!))?.status).toBe(1);
    expect(await provider.getTransactionReceipt(sentFirst.tx_hash!)).toBeNull();
    expect(await provider.getTransactionCount(wallet, 'latest')).toBe(before.nonce + 2);
    expect(await collectionAt(provider, collection).totalMinted()).toBe(before.minted + 2n);
    expect(restarted.output()).toContain('Stuck nonce signed again');
    expect(restarted.output()).toContain('max fee per gas less than block base fee');
  });

  it('settles both once when the stuck operation runs too (its run adopts any version)', async () => {
    const { db, before, first, second, sentFirst } = await dropFirstOfTwo({
      loseFirstJob: false,
      pricedOut: true,
    });

    const [settledFirst] = await Promise.all([
      waitForStatus(db, first, 'confirmed', 60_000),
      waitForStatus(db, second, 'confirmed', 60_000),
    ]);
    expect(settledFirst.nonce).toBe(sentFirst.nonce);
    expect(settledFirst.tx_hash).not.toBe(sentFirst.tx_hash);
    expect((await provider.getTransactionReceipt(settledFirst.tx_hash!))?.status).toBe(1);
    expect(await provider.getTransactionCount(wallet, 'latest')).toBe(before.nonce + 2);
    expect(await collectionAt(provider, collection).totalMinted()).toBe(before.minted + 2n);
  });
});
