import { Connection, PublicKey } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, getMint, getTokenGroupState } from '@solana/spl-token';
import Redis from 'ioredis';
import { queueShardOf } from '@app/queue';
import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { operationRow, waitForStatus } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

const SHARDS = 6;
const LEASE_TTL_MS = 3_000;
const MINTS_PER_ACCOUNT = 8;
const IMAGE = 'https://example.com/s.png';

type Network = 'base' | 'solana';

interface Account {
  network: Network;
  api: HttpClient;
  /** The signer of the account's operations on the network (its managed wallet). */
  wallet: string;
  collection: string;
}

interface MintRow extends Record<string, unknown> {
  id: string;
  status: string;
  signer: string;
  nonce: string | null;
}

/**
 * Three worker processes sharing the queue shards by lease: under a SIGKILL of one of them and a
 * Redis flush mid-run every operation is sent and confirmed exactly once, on either chain family,
 * and a killed worker's wallets are served by another within the lease time.
 */
describe('three workers on leased shards', () => {
  let stack: ServiceStack;

  beforeAll(async () => {
    stack = await startServiceStack({
      workers: 3,
      env: {
        QUEUE_SHARDS: String(SHARDS),
        LEASE_TTL_MS: String(LEASE_TTL_MS),
        JOB_LOCK_MS: '1000',
        RECONCILE_AFTER_MS: '1500',
      },
      workerEnv: { WORKER_NETWORKS: 'base,solana' },
      // EVM blocks every half second and Solana transactions landing at the end of their slot:
      // a mint waits a moment on chain, so the crash below finds some in flight.
      chains: { evmBlockTimeSeconds: 0.5, solanaLandAtSlotBoundary: true },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const newAccounts = (network: Network, count: number): Promise<Account[]> =>
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const { api } = await newAccountClient(stack.http);
        const created = await api.post('/nfts', {
          network,
          name: `Shard ${i}`,
          description: 'three workers',
          images: [IMAGE],
        });
        expect(created.status).toBe(200);
        const row = await operationRow<MintRow>(
          stack.services.databaseUrl,
          created.body.data.operation_id,
        );
        return { network, api, wallet: row.signer, collection: created.body.data.mint_address };
      }),
    );

  const mintAsync = async (account: Account, name: string): Promise<string> => {
    const response = await account.api.post(
      `/nfts/${account.collection}/mint`,
      { name, images: [IMAGE] },
      { prefer: 'respond-async' },
    );
    expect(response.status).toBe(202);
    return response.body.data.operation_id as string;
  };

  /**
   * The worker process holding the lease of a wallet's shard (its id is `<host>:<pid>:<n>`). A
   * shard is free for a moment while the workers split them (given back by one, not yet taken by
   * another): the owner is read again until one of the stack's workers holds it.
   */
  const shardOwner = async ({ network, wallet }: Account) => {
    const redis = new Redis(stack.services.redisUrl);
    try {
      const key = `${stack.env.QUEUE_PREFIX}:lease:{${network}}:${queueShardOf(wallet, SHARDS)}`;
      const deadline = Date.now() + 2 * LEASE_TTL_MS;
      for (;;) {
        const owner = await redis.get(key);
        const pid = Number(owner?.split(':')[1]);
        const worker = stack.workers.find((candidate) => candidate.process.pid === pid);
        if (owner && worker) return { id: owner, process: worker };
        if (Date.now() > deadline)
          throw new Error(`${key} held by no worker of the stack: ${owner}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      redis.disconnect();
    }
  };

  /**
   * Half the mints of every account; then the worker serving the first account's wallet is
   * SIGKILLed while some are in flight, Redis is emptied (every queue, job, lock and lease), and
   * a replacement worker joins (the shards are split again) while the other half is sent.
   * Returns the operations' rows once all are confirmed (or the wait ran out).
   */
  async function mintThroughCrash(accounts: Account[]): Promise<MintRow[]> {
    const round = (from: number, to: number) =>
      Promise.all(
        accounts.flatMap((account, a) =>
          Array.from({ length: to - from }, (_, i) => mintAsync(account, `m ${a}.${from + i}`)),
        ),
      );
    const half = MINTS_PER_ACCOUNT / 2;
    const first = await round(0, half);

    const owner = await shardOwner(accounts[0]);
    await owner.process.stop('SIGKILL');
    const unsettled = await queryDatabase(
      stack.services.databaseUrl,
      `SELECT id FROM operations WHERE id = ANY($1::uuid[]) AND status <> 'confirmed'`,
      [first],
    );
    expect(unsettled.length).toBeGreaterThan(0);
    const redis = new Redis(stack.services.redisUrl);
    const keys = await redis.keys(`${stack.env.QUEUE_PREFIX}:*`);
    expect(keys.some((key) => key.includes(`:lease:{${accounts[0].network}}:`))).toBe(true);
    await redis.del(...keys);
    redis.disconnect();
    await stack.startWorker();
    const second = await round(half, MINTS_PER_ACCOUNT);

    const ids = [...first, ...second];
    const deadline = Date.now() + 60_000;
    let rows: MintRow[] = [];
    while (Date.now() < deadline) {
      rows = await queryDatabase<MintRow>(
        stack.services.databaseUrl,
        'SELECT id, status, signer, nonce FROM operations WHERE id = ANY($1::uuid[])',
        [ids],
      );
      if (rows.every((row) => row.status === 'confirmed')) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(rows.filter((row) => row.status !== 'confirmed')).toEqual([]);
    for (const account of accounts) {
      expect(rows.filter((row) => row.signer === account.wallet)).toHaveLength(MINTS_PER_ACCOUNT);
    }
    // Each operation signed one transaction: recovery re-sent the same bytes, never new ones.
    const signed = await queryDatabase<{ operation_id: string; hashes: string }>(
      stack.services.databaseUrl,
      `SELECT operation_id, count(DISTINCT tx_hash) AS hashes FROM operation_transactions
        WHERE operation_id = ANY($1::uuid[]) GROUP BY operation_id`,
      [ids],
    );
    expect(signed).toHaveLength(ids.length);
    expect(signed.filter((row) => Number(row.hashes) !== 1)).toEqual([]);
    return rows;
  }

  it('confirms every EVM mint exactly once through a SIGKILL and a Redis flush', async () => {
    const accounts = await newAccounts('base', 4);
    const provider = evmReader(stack.chains.evmRpcUrl);
    const sentBefore = await Promise.all(
      accounts.map((account) => provider.getTransactionCount(account.wallet, 'latest')),
    );
    const rows = await mintThroughCrash(accounts);
    for (const [a, account] of accounts.entries()) {
      const mine = rows.filter((row) => row.signer === account.wallet);
      // One nonce each, and nothing else left the wallet: no operation was sent twice.
      expect(new Set(mine.map((row) => row.nonce)).size).toBe(MINTS_PER_ACCOUNT);
      expect(await provider.getTransactionCount(account.wallet, 'latest')).toBe(
        sentBefore[a] + MINTS_PER_ACCOUNT,
      );
      expect(await collectionAt(provider, account.collection).totalMinted()).toBe(
        BigInt(MINTS_PER_ACCOUNT),
      );
    }
    provider.destroy();
  });

  it('confirms every Solana mint exactly once through a SIGKILL and a Redis flush', async () => {
    const accounts = await newAccounts('solana', 3);
    await mintThroughCrash(accounts);
    const connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
    for (const account of accounts) {
      // The collection counts its members on chain: a mint sent twice would be two members.
      const mint = await getMint(
        connection,
        new PublicKey(account.collection),
        'confirmed',
        TOKEN_2022_PROGRAM_ID,
      );
      expect(getTokenGroupState(mint)!.size).toBe(BigInt(MINTS_PER_ACCOUNT));
    }
  });

  it("serves a killed worker's wallet from another worker within the lease time", async () => {
    const [account] = await newAccounts('base', 1);
    // Settled first: the wallet is idle when its worker dies.
    const warm = await mintAsync(account, 'before the kill');
    await waitForStatus(stack.services.databaseUrl, warm, 'confirmed', 30_000);
    const owner = await shardOwner(account);

    await owner.process.stop('SIGKILL');
    const killedAt = Date.now();
    const id = await mintAsync(account, 'after the kill');
    await waitForStatus(stack.services.databaseUrl, id, 'confirmed', 30_000);
    const elapsed = Date.now() - killedAt;

    const next = await shardOwner(account);
    expect(next.id).not.toBe(owner.id);
    expect(next.process.process.signalCode).toBeNull();
    // The lease lapses within its time; the taker looks every third of it (1 s), then starts
    // the shard's consumer and runs the mint (a block, 0.5 s).
    expect(elapsed).toBeLessThan(LEASE_TTL_MS + 3_000);
  });
});
