import Redis from 'ioredis';
import type { JsonRpcProvider } from 'ethers';
import { queueShardOf } from '@app/queue';
import { collectionAt, evmReader } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { operationRow, waitForStatus } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { createBaseCollection, mintAsync } from '@test/support/nft-requests';

jest.setTimeout(120_000);

const SHARDS = 2;
const LEASE_TTL_MS = 3_000;

/**
 * When a worker joins, the others give it shards back. A shard whose operation waits long (here
 * for a receipt that cannot come: nothing is mined) changes hands within the lease time anyway:
 * the check of that operation is parked between rounds, or, mid-round, handed over with it
 * still running. The wallet's next operation is not held until that wait ends.
 */
describe('a shard given back while its operation still waits', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      workers: 1,
      env: {
        QUEUE_SHARDS: String(SHARDS),
        LEASE_TTL_MS: String(LEASE_TTL_MS),
        RECONCILE_AFTER_MS: '600000',
      },
    });
    provider = evmReader(stack.chains.evmRpcUrl);
    // The first worker gives back its highest shard: an account whose wallet is there.
    for (let tries = 0; !api; tries++) {
      if (tries === 30) throw new Error(`no wallet on shard ${SHARDS - 1} in 30 accounts`);
      const client = await newAccountClient(stack.http);
      const wallet = client.account.wallets.find((w) => w.network === 'evm')!.public_key;
      if (queueShardOf(wallet, SHARDS) === SHARDS - 1) api = client.api;
    }
    collection = await createBaseCollection(api, 'Hand-over', 'shards changing hands');
  });

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  async function leaseOwner(network: string, shard: number): Promise<string | null> {
    const redis = new Redis(stack.services.redisUrl);
    try {
      return await redis.get(`${stack.env.QUEUE_PREFIX}:lease:{${network}}:${shard}`);
    } finally {
      redis.disconnect();
    }
  }

  async function until(what: string, check: () => Promise<boolean | undefined>): Promise<void> {
    const deadline = Date.now() + 6 * LEASE_TTL_MS;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const queueMint = (name: string): Promise<string> => mintAsync(api, collection, name);

  it("serves the shard's next operation from the newcomer while the first one waits", async () => {
    const db = stack.services.databaseUrl;
    const mintedBefore: bigint = await collectionAt(provider, collection).totalMinted();
    await provider.send('evm_setAutomine', [false]);
    await provider.send('evm_setIntervalMining', [0]);
    const first = await queueMint('first');
    const sentFirst = await waitForStatus(db, first, 'submitted');

    const [owner] = stack.workers;
    const joined = Date.now();
    const newcomer = await stack.startWorker();
    // Given back at the owner's next renewal (at once with the first check parked, a lease
    // time later with it mid-round), taken at the newcomer's next renewal: seconds.
    await until('the newcomer holding the lease of base shard 1', async () =>
      (await leaseOwner('base', 1))?.includes(`:${newcomer.process.pid}:`),
    );
    expect(Date.now() - joined).toBeLessThan(4 * LEASE_TTL_MS);
    expect(owner.output()).toMatch(
      /Gave back base shard 1|base shard 1 handed over after 3000 ms with jobs still running/,
    );

    const second = await queueMint('second');
    const sentSecond = await waitForStatus(db, second, 'submitted', 10_000);
    expect((await operationRow(db, first)).status).toBe('submitted');
    expect(Number(sentSecond.nonce)).toBe(Number(sentFirst.nonce) + 1);

    // Mined: the first (its check woken wherever it is parked) and the second settle once each.
    await provider.send('evm_mine', []);
    await provider.send('evm_setAutomine', [true]);
    const [firstDone, secondDone] = await Promise.all([
      waitForStatus(db, first, 'confirmed', 15_000),
      waitForStatus(db, second, 'confirmed', 15_000),
    ]);
    expect(firstDone.tx_hash).toBe(sentFirst.tx_hash);
    expect(secondDone.tx_hash).toBe(sentSecond.tx_hash);
    expect(await collectionAt(provider, collection).totalMinted()).toBe(mintedBefore + 2n);
  });
});
