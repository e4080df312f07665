import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { asyncMintLands } from '@test/support/token-writes';
import { summary } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import {
  EPHEMERAL_REDIS_ARGS,
  spawnRedisServer,
  type RedisServerProcess,
} from '@test/support/own-redis';
import { freePort } from '@test/support/service-process';
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

const NAME = 'ais-primary';

let nodes: { port: number; server: RedisServerProcess }[] = [];
let sentinel: RedisServerProcess;
let sentinelPort: number;
let stack: ServiceStack;
let api: HttpClient;
let token: string;

async function primaryPort(): Promise<number> {
  const client = new Redis(sentinelPort, '127.0.0.1', { maxRetriesPerRequest: 1 });
  try {
    const [, port] = (await client.call('SENTINEL', 'get-master-addr-by-name', NAME)) as string[];
    return Number(port);
  } finally {
    client.disconnect();
  }
}

async function primaryBecomes(port: number, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; (await primaryPort()) !== port;) {
    if (Date.now() > deadline) throw new Error(`the Sentinel did not promote ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function mintLands(withinMs: number): Promise<void> {
  return asyncMintLands(api, token, 'base', withinMs);
}

beforeAll(async () => {
  const [first, second] = [await freePort(), await freePort()];
  nodes = [
    {
      port: first,
      server: await spawnRedisServer(['--port', String(first), ...EPHEMERAL_REDIS_ARGS]),
    },
    {
      port: second,
      server: await spawnRedisServer([
        '--port',
        String(second),
        '--replicaof',
        '127.0.0.1',
        String(first),
        ...EPHEMERAL_REDIS_ARGS,
      ]),
    },
  ];
  sentinelPort = await freePort();
  const config = join(mkdtempSync(join(tmpdir(), 'ais-sentinel-')), 'sentinel.conf');
  writeFileSync(
    config,
    [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `sentinel monitor ${NAME} 127.0.0.1 ${first} 1`,
      `sentinel down-after-milliseconds ${NAME} 1000`,
      `sentinel failover-timeout ${NAME} 5000`,
      '',
    ].join('\n'),
  );
  sentinel = await spawnRedisServer([config, '--sentinel']);
  stack = await startServiceStack({
    env: {
      REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
      REDIS_SENTINEL_NAME: NAME,
      RATE_LIMIT_REQUESTS: '100000',
    },
  });
  api = (await newAccountClient(stack.http)).api;
  const created = await api.post('/tokens', {
    network: 'base',
    name: 'Sentinel',
    symbol: 'SNT',
    amount: 10,
  });
  expect(summary(created)).toMatchObject({ status: 200, body: { data: { status: 'confirmed' } } });
  token = created.body.data.mint_address;
});

afterAll(async () => {
  await stack?.stop();
  await sentinel?.stop();
  await Promise.all(nodes.map((node) => node.server.stop()));
});

it('runs on the primary the Sentinel names', async () => {
  expect(await primaryPort()).toBe(nodes[0].port);
  await mintLands(15_000);
});

it('takes jobs again within seconds after a failover that demotes a live primary', async () => {
  const client = new Redis(sentinelPort, '127.0.0.1');
  try {
    await client.call('SENTINEL', 'FAILOVER', NAME);
  } finally {
    client.disconnect();
  }
  await primaryBecomes(nodes[1].port);
  await mintLands(15_000);
  await mintLands(5_000);
});

it('takes jobs again within seconds after the primary is killed and its replica promoted', async () => {
  await nodes[1].server.kill();
  await primaryBecomes(nodes[0].port);
  await mintLands(15_000);
  await mintLands(5_000);
});
