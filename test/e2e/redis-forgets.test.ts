import Redis from 'ioredis';
import { CHECK_ROUND_MS } from '@app/domain';
import type { JsonRpcProvider } from 'ethers';
import { collectionAt, evmReader } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { waitForStatus } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { createBaseCollection, mintAsync } from '@test/support/nft-requests';

jest.setTimeout(120_000);

const MINTS = 5;

/**
 * Redis forgets everything (FLUSHALL here; a failover to a replica that had not caught up, a
 * restart without persistence): the jobs of operations in flight are gone. The reconciler sees
 * the loss at its next run and enqueues every unsettled operation again at once, rather than
 * after RECONCILE_AFTER_MS untouched (ten minutes here, so only the loss can explain a recovery).
 */
describe('Redis losing its jobs', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({ env: { RECONCILE_AFTER_MS: '600000' } });
    provider = evmReader(stack.chains.evmRpcUrl);
    api = (await newAccountClient(stack.http)).api;
    collection = await createBaseCollection(api, 'Forgotten', 'jobs lost with Redis');
  });

  afterAll(async () => {
    await provider?.send('evm_setAutomine', [true]).catch(() => undefined);
    provider?.destroy();
    await stack?.stop();
  });

  it('settles every operation in flight once, soon after the flush', async () => {
    const db = stack.services.databaseUrl;
    const mintedBefore: bigint = await collectionAt(provider, collection).totalMinted();
    await provider.send('evm_setAutomine', [false]);
    await provider.send('evm_setIntervalMining', [0]);
    const ids: string[] = [];
    for (let i = 0; i < MINTS; i++) ids.push(await mintAsync(api, collection, `forgotten ${i}`));
    await Promise.all(ids.map((id) => waitForStatus(db, id, 'submitted')));
    // Past their first round: their jobs are parked in Redis, no process runs them.
    await new Promise((resolve) => setTimeout(resolve, CHECK_ROUND_MS + 1_000));

    const redis = new Redis(stack.services.redisUrl);
    try {
      await redis.flushall();
    } finally {
      redis.disconnect();
    }
    await provider.send('evm_setAutomine', [true]);
    await provider.send('evm_mine', []);

    const settled = await Promise.all(ids.map((id) => waitForStatus(db, id, 'confirmed', 20_000)));
    expect(new Set(settled.map((row) => row.tx_hash)).size).toBe(MINTS);
    expect(await collectionAt(provider, collection).totalMinted()).toBe(
      mintedBefore + BigInt(MINTS),
    );
    expect(stack.workers[0].output()).toMatch(/Redis lost its jobs: re-enqueued \d+ unsettled/);
  });
});
