/**
 * Webhook delivery: how fast the service delivers events to a local receiver, against a raw
 * sender in the same run, and how long after settlement a receiver gets the event.
 *   (a) throughput: BENCH_WEBHOOK_EVENTS settled operations of one account are committed at once
 *       (rows written straight to Postgres, so the chain is not what is measured); the outbox
 *       fans them out and the worker delivers them to one endpoint (one at a time, in order,
 *       signed). Baseline: a raw Node script POSTing the same signed bodies to the same
 *       receiver one at a time over a keep-alive connection, as fast as it can.
 *   (b) latency: BENCH_WEBHOOK_MINTS synchronous token mints on the local EVM chain; for each,
 *       the time from the `operation.confirmed` event's commit (`created_at`) to its arrival at
 *       the receiver (same machine, same clock).
 * Run: npm run bench:webhooks   (BENCH_WEBHOOK_EVENTS=2000, BENCH_WEBHOOK_MINTS=100)
 */
import { Agent, request } from 'node:http';
import { signWebhook } from '@app/common';
import { createDataSource, OperationRepository } from '@app/database';
import { scopeOf } from '@test/support/work-scope';
import { newOperationEntity } from '@test/support/operation-factory';
import { newAccountClient, startServiceStack } from '@test/support/service-stack';
import { startWebhookReceiver, type WebhookReceiver } from '@test/support/webhook-receiver';
import { percentile, round } from './stats';

export interface WebhookBenchResult {
  events: number;
  rawDeliveriesPerSecond: number;
  serviceDeliveriesPerSecond: number;
  ratio: number;
  mints: number;
  settlementToDeliveryP50Ms: number;
  settlementToDeliveryP99Ms: number;
  settlementToDeliveryMaxMs: number;
}

const MINT = { kind: 'token.mint', asset: '0xasset', amount: '1', recipient: '0xr' } as const;

export async function run(
  events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2_000),
  mints = Number(process.env.BENCH_WEBHOOK_MINTS ?? 100),
): Promise<WebhookBenchResult> {
  const stack = await startServiceStack({
    env: { RATE_LIMIT_REQUESTS: '1000000', WEBHOOK_SWEEP_INTERVAL_MS: '500' },
  });
  const receiver = await startWebhookReceiver();
  try {
    const service = await serviceThroughput(
      stack.services.databaseUrl,
      stack.http,
      receiver,
      events,
    );
    const raw = await rawThroughput(receiver, service.bodies);
    const latencies = await settlementLatencies(stack.http, receiver, mints);
    return {
      events,
      rawDeliveriesPerSecond: round(raw),
      serviceDeliveriesPerSecond: round(service.rate),
      ratio: round(service.rate / raw, 2),
      mints,
      settlementToDeliveryP50Ms: round(percentile(latencies, 50)),
      settlementToDeliveryP99Ms: round(percentile(latencies, 99)),
      settlementToDeliveryMaxMs: round(Math.max(...latencies)),
    };
  } finally {
    await receiver.close();
    await stack.stop();
  }
}

/** (a) the service: events committed in one transaction, delivered to one endpoint. */
async function serviceThroughput(
  databaseUrl: string,
  http: Parameters<typeof newAccountClient>[0],
  receiver: WebhookReceiver,
  events: number,
): Promise<{ rate: number; bodies: string[] }> {
  const { api } = await newAccountClient(http);
  const endpoint = await api.post('/webhooks', {
    url: receiver.url,
    event_types: ['operation.confirmed'],
  });
  if (endpoint.status !== 200) throw new Error(`endpoint: ${JSON.stringify(endpoint.body)}`);
  const accountId = await accountOf(databaseUrl, endpoint.body.data.id as string);
  const dataSource = await createDataSource(databaseUrl).initialize();
  try {
    const operations = new OperationRepository(dataSource);
    const started = performance.now();
    await dataSource.transaction(async (manager) => {
      for (let i = 0; i < events; i++) {
        await operations.insert(
          scopeOf(manager),
          newOperationEntity(accountId, MINT, { status: 'confirmed', settledAt: new Date() }),
        );
      }
    });
    const committed = performance.now();
    await receiver.until((received) => received.length >= events, 300_000);
    const rate = (events * 1000) / (performance.now() - committed);
    const sequences = receiver.received.map((hook) => hook.body.sequence ?? 0);
    if (sequences.some((sequence, i) => i > 0 && sequence <= sequences[i - 1])) {
      throw new Error('deliveries out of sequence order');
    }
    console.log(`  committed ${events} events in ${round(committed - started)} ms`);
    return { rate, bodies: receiver.received.map((hook) => hook.rawBody) };
  } finally {
    await dataSource.destroy();
  }
}

/** The baseline: the same bodies, signed, POSTed one at a time over keep-alive. */
async function rawThroughput(receiver: WebhookReceiver, bodies: string[]): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const url = new URL(receiver.url);
  const started = performance.now();
  try {
    for (const [i, body] of bodies.entries()) {
      const headers = signWebhook([secret], `raw-${i}`, Math.floor(Date.now() / 1000), body);
      await post(agent, url, body, headers);
    }
  } finally {
    agent.destroy();
  }
  return (bodies.length * 1000) / (performance.now() - started);
}

function post(agent: Agent, url: URL, body: string, headers: object) {
  return new Promise<void>((resolve, reject) => {
    const sent = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve());
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** (b) settlement to delivery of synchronous mints on the local EVM chain. */
async function settlementLatencies(
  http: Parameters<typeof newAccountClient>[0],
  receiver: WebhookReceiver,
  mints: number,
): Promise<number[]> {
  const { api } = await newAccountClient(http);
  const hook = await api.post('/webhooks', {
    url: receiver.url,
    event_types: ['operation.confirmed'],
  });
  if (hook.status !== 200) throw new Error(`endpoint: ${JSON.stringify(hook.body)}`);
  const token = await api.post('/tokens', {
    network: 'base',
    name: 'Bench',
    symbol: 'BNCH',
    amount: '1000',
  });
  if (token.status !== 200) throw new Error(`token: ${JSON.stringify(token.body)}`);
  const mint: string = token.body.data.mint_address;
  const ids = new Set<string>();
  for (let i = 0; i < mints; i++) {
    const minted = await api.post(`/tokens/${mint}/mint`, { amount: '1' });
    if (minted.status !== 200) throw new Error(`mint: ${JSON.stringify(minted.body)}`);
    ids.add(minted.body.data.operation_id as string);
  }
  const mine = () =>
    receiver.received.filter((received) => ids.has(received.body.data.operation_id as string));
  await receiver.until(() => mine().length >= mints, 60_000);
  return mine().map((received) => received.at - Date.parse(received.body.created_at));
}

async function accountOf(databaseUrl: string, endpointId: string): Promise<string> {
  const dataSource = await createDataSource(databaseUrl).initialize();
  try {
    const [row] = await dataSource.query(`SELECT account_id FROM webhook_endpoints WHERE id = $1`, [
      endpointId,
    ]);
    return row.account_id as string;
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  run().then(
    (result) => {
      console.table(result);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
