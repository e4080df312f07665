import Redis from 'ioredis';
import { queueShardOf } from '@app/queue';
import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { waitForStatus } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

const SHARDS = 6;
const LEASE_TTL_MS = 3_000;
const ACCOUNTS = 4;
const MINTS_PER_ACCOUNT = 8;

interface Account {
  api: HttpClient;
  wallet: string;
  collection: string;
}

/**
 * Three worker processes sharing the queue shards by lease: under a SIGKILL of one of them and a
 * Redis flush mid-run every operation is sent and confirmed exactly once, and a killed worker's
 * wallets are served by another within the lease time.
 */
describe('three workers on leased shards', () => {
  let stack: ServiceStack;
  let accounts: Account[];

  beforeAll(async () => {
    stack = await startServiceStack({
      workers: 3,
      env: {
        QUEUE_SHARDS: String(SHARDS),
        LEASE_TTL_MS: String(LEASE_TTL_MS),
        JOB_LOCK_MS: '1000',
        RECONCILE_AFTER_MS: '1500',
      },
      workerEnv: { WORKER_NETWORKS: 'base' },
      // Blocks every half second: a mint waits for one, so the crash below finds some in flight.
      chains: { evmBlockTimeSeconds: 0.5 },
    });
    accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, async (_, i) => {
        const { api, account } = await newAccountClient(stack.http);
        const created = await api.post('/nfts', {
          network: 'base',
          name: `Shard ${i}`,
          description: 'three workers',
          images: ['https://example.com/s.png'],
        });
        expect(created.status).toBe(200);
        return {
          api,
          wallet: account.wallets.find((w) => w.network === 'evm')!.public_key,
          collection: created.body.data.mint_address as string,
        };
      }),
    );
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const mintAsync = async (account: Account, name: string): Promise<string> => {
    const response = await account.api.post(
      `/nfts/${account.collection}/mint`,
      { name, images: ['https://example.com/s.png'] },
      { prefer: 'respond-async' },
    );
    expect(response.status).toBe(202);
    return response.body.data.operation_id as string;
  };

  /** The worker process holding the lease of a wallet's shard (its id is `<host>:<pid>:<n>`). */
  const shardOwner = async (wallet: string) => {
    const redis = new Redis(stack.services.redisUrl);
    try {
      const key = `${stack.env.QUEUE_PREFIX}:lease:base:${queueShardOf(wallet, SHARDS)}`;
      const owner = await redis.get(key);
      const pid = Number(owner?.split(':')[1]);
      return { id: owner, process: stack.workers.find((worker) => worker.process.pid === pid) };
    } finally {
      redis.disconnect();
    }
  };

  it('confirms every operation exactly once through a SIGKILL and a Redis flush', async () => {
    const provider = evmReader(stack.chains.evmRpcUrl);
    const sentBefore = await Promise.all(
      accounts.map((account) => provider.getTransactionCount(account.wallet, 'latest')),
    );
    const round = (from: number, to: number) =>
      Promise.all(
        accounts.flatMap((account, a) =>
          Array.from({ length: to - from }, (_, i) => mintAsync(account, `m ${a}.${from + i}`)),
        ),
      );
    const half = MINTS_PER_ACCOUNT / 2;
    const first = await round(0, half);

    // Mid-run: a worker serving a wallet killed outright, every queue, job, lock and lease gone
    // with Redis.
    const owner = await shardOwner(accounts[0].wallet);
    await owner.process!.stop('SIGKILL');
    const unsettled = await queryDatabase(
      stack.services.databaseUrl,
      `SELECT id FROM operations WHERE id = ANY($1::uuid[]) AND status <> 'confirmed'`,
      [first],
    );
    expect(unsettled.length).toBeGreaterThan(0);
    const redis = new Redis(stack.services.redisUrl);
    const keys = await redis.keys(`${stack.env.QUEUE_PREFIX}:*`);
    expect(keys.some((key) => key.includes(':lease:base:'))).toBe(true);
    await redis.del(...keys);
    redis.disconnect();
    // A replacement joins while the others work: the shards are split again.
    await stack.startWorker();
    const second = await round(half, MINTS_PER_ACCOUNT);

    const ids = [...first, ...second];
    const deadline = Date.now() + 60_000;
    let rows: { status: string; signer: string; nonce: string; id: string }[] = [];
    while (Date.now() < deadline) {
      rows = await queryDatabase(
        stack.services.databaseUrl,
        'SELECT id, status, signer, nonce FROM operations WHERE id = ANY($1::uuid[])',
        [ids],
      );
      if (rows.every((row) => row.status === 'confirmed')) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(rows.filter((row) => row.status !== 'confirmed')).toEqual([]);
    for (const [a, account] of accounts.entries()) {
      const mine = rows.filter((row) => row.signer.toLowerCase() === account.wallet.toLowerCase());
      expect(mine).toHaveLength(MINTS_PER_ACCOUNT);
      // One nonce each, and nothing else left the wallet: no operation was sent twice.
      expect(new Set(mine.map((row) => row.nonce)).size).toBe(MINTS_PER_ACCOUNT);
      expect(await provider.getTransactionCount(account.wallet, 'latest')).toBe(
        sentBefore[a] + MINTS_PER_ACCOUNT,
      );
      expect(await collectionAt(provider, account.collection).totalMinted()).toBe(
        BigInt(MINTS_PER_ACCOUNT),
      );
    }
    const signed = await queryDatabase<{ operation_id: string; hashes: string }>(
      stack.services.databaseUrl,
      `SELECT operation_id, count(DISTINCT tx_hash) AS hashes FROM operation_transactions
        WHERE operation_id = ANY($1::uuid[]) GROUP BY operation_id`,
      [ids],
    );
    expect(signed).toHaveLength(ids.length);
    expect(signed.filter((row) => Number(row.hashes) !== 1)).toEqual([]);
    provider.destroy();
  });

  it("serves a killed worker's wallet from another worker within the lease time", async () => {
    const [account] = accounts;
    // Settled first: the wallet is idle when its worker dies.
    const warm = await mintAsync(account, 'before the kill');
    await waitForStatus(stack.services.databaseUrl, warm, 'confirmed', 30_000);
    const owner = await shardOwner(account.wallet);
    expect(owner.process).toBeDefined();

    await owner.process!.stop('SIGKILL');
    const killedAt = Date.now();
    const id = await mintAsync(account, 'after the kill');
    await waitForStatus(stack.services.databaseUrl, id, 'confirmed', 30_000);
    const elapsed = Date.now() - killedAt;

    const next = await shardOwner(account.wallet);
    expect(next.id).not.toBeNull();
    expect(next.id).not.toBe(owner.id);
    expect(next.process?.process.signalCode).toBeNull();
    // The lease lapses within its time; the taker looks every third of it, then runs the mint.
    expect(elapsed).toBeLessThan(LEASE_TTL_MS + 2_500);
  });
});
