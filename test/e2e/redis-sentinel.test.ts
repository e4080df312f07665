import { startRedisSentinels, type OwnRedisSentinels } from '@app/localnet';
import { asyncMintLands, createConfirmedTokens } from '@test/support/token-writes';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

/**
 * Redis behind Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME): a primary, a replica and a
 * Sentinel of the test's own. The service follows the primary through a failover that demotes a
 * live primary (where BullMQ workers are known to hang on the old node, bullmq issue 3088) and
 * through one that follows a killed primary: each time the worker takes jobs again within
 * seconds, and writes accepted then confirm.
 */

let redis: OwnRedisSentinels;
let stack: ServiceStack;
let api: HttpClient;
let token: string;

function mintLands(withinMs: number): Promise<void> {
  return asyncMintLands(api, token, 'base', withinMs);
}

beforeAll(async () => {
  redis = await startRedisSentinels(1);
  stack = await startServiceStack({ env: { ...redis.env, RATE_LIMIT_REQUESTS: '100000' } });
  api = (await newAccountClient(stack.http)).api;
  const tokens = await createConfirmedTokens(api, ['base'], {
    name: 'Sentinel',
    symbol: 'SNT',
    amount: 10,
  });
  token = tokens.get('base')!;
});

afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
});

it('runs on the primary the Sentinel names', async () => {
  expect(await redis.primaryPort()).toBe(redis.nodes[0].port);
  await mintLands(15_000);
});

it('takes jobs again within seconds after a failover that demotes a live primary', async () => {
  await redis.failover();
  await redis.primaryBecomes(redis.nodes[1].port);
  await mintLands(15_000);
  await mintLands(5_000);
});

it('takes jobs again within seconds after the primary is killed and its replica promoted', async () => {
  await redis.nodes[1].server.kill();
  await redis.primaryBecomes(redis.nodes[0].port);
  await mintLands(15_000);
  await mintLands(5_000);
});
