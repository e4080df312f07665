import { operationQueueName, queueShardOf } from '@app/queue';
import type { ConcreteNetwork } from '@app/config';
import { asyncMintLands, createConfirmedTokens } from '@test/support/token-writes';
import type { HttpClient } from '@test/support/http-client';
import { startRedisCluster, type OwnRedisCluster } from '@app/localnet';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(240_000);

/**
 * The service on a Redis Cluster of its own (REDIS_CLUSTER_NODES): 3 masters with 2 replicas
 * each. Writes on both families confirm, and each time a master dies (the one serving the queue
 * of the account's EVM wallet, then the one serving Solana's leases and backlog) the workers
 * take jobs again within seconds of its replica's promotion.
 */

const SHARDS = 4;
let cluster: OwnRedisCluster;
let stack: ServiceStack;
let api: HttpClient;
let prefix: string;
let tokens = new Map<ConcreteNetwork, string>();
const signers = new Map<ConcreteNetwork, string>();

function mintLands(network: ConcreteNetwork, withinMs: number): Promise<void> {
  return asyncMintLands(api, tokens.get(network)!, network, withinMs);
}

beforeAll(async () => {
  cluster = await startRedisCluster(3, 2);
  stack = await startServiceStack({
    env: {
      REDIS_CLUSTER_NODES: cluster.nodesEnv,
      QUEUE_SHARDS: String(SHARDS),
      RATE_LIMIT_REQUESTS: '100000',
    },
  });
  prefix = stack.env.QUEUE_PREFIX;
  const client = await newAccountClient(stack.http);
  api = client.api;
  for (const wallet of client.account.wallets) {
    signers.set(wallet.network === 'evm' ? 'base' : 'solana', wallet.public_key);
  }
  tokens = await createConfirmedTokens(api, ['base', 'solana'], {
    name: 'Cluster',
    symbol: 'CLS',
    amount: 10,
  });
});

afterAll(async () => {
  await stack?.stop();
  await cluster?.stop();
});

it('writes on both families through the cluster', async () => {
  await mintLands('base', 15_000);
  await mintLands('solana', 15_000);
  // The worker's leases are kept in the cluster, not in the machine's Redis.
  const shard = queueShardOf(signers.get('base')!, SHARDS);
  expect(await cluster.get(`${prefix}:lease:{base}:${shard}`)).toMatch(/.+/);
});

it("takes jobs again within seconds after the master of the wallet's queue dies", async () => {
  const queue = operationQueueName('base', queueShardOf(signers.get('base')!, SHARDS));
  await cluster.killMasterOf(`${prefix}:${queue}:wait`);
  await mintLands('base', 20_000);
  await mintLands('base', 5_000);
  await mintLands('solana', 10_000);
});

it("takes jobs again within seconds after the master of a network's leases dies", async () => {
  await cluster.killMasterOf(`${prefix}:lease:{solana}:0`);
  await mintLands('solana', 20_000);
  await mintLands('solana', 5_000);
  await mintLands('base', 10_000);
});
