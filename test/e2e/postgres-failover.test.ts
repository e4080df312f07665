import { randomUUID } from 'node:crypto';
import type { ConcreteNetwork } from '@app/config';
import { evmTruth, solanaTruth } from '../chaos/chain-truth';
import { settledOperation, summary } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { startPostgresHa, type PostgresHa } from '@app/localnet';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { createConfirmedTokens } from '@test/support/token-writes';
import { SseClient, type SseEvent } from '@test/support/sse-client';

jest.setTimeout(300_000);

/**
 * The service on Postgres as production runs it: a primary and a synchronous standby under
 * Patroni, behind HAProxy (test/support/postgres-ha.ts). The primary node dies (Patroni and
 * Postgres SIGKILLed) while async mints flow on both families. Every answer is a 2xx or a 503
 * with Retry-After, never a 500; the client retrying with its Idempotency-Key gets each write
 * accepted once; the chain's supply grows by exactly the writes accepted (nothing lost, nothing
 * doubled); a synchronous write after the failover is woken as soon as it confirms; and the
 * event stream, with its polling fallback off, carries every confirmation: its LISTEN connection
 * came back on the new primary and caught up.
 */

const NETWORKS: ConcreteNetwork[] = ['base', 'solana'];
const SYNC_WAIT_MS = 30_000;

let ha: PostgresHa;
let stack: ServiceStack;
let api: HttpClient;
let apiKey: string;
let tokens = new Map<ConcreteNetwork, string>();
const initialSupply = 10n;

interface Answer {
  status: number;
  retryAfter: string | null;
}
const answers: Answer[] = [];

/**
 * POST a mint with an Idempotency-Key, again with the same key after each 503 (waiting its
 * Retry-After, at most a second here) until it is accepted; returns the operation.
 */
async function mintUntilAccepted(
  network: ConcreteNetwork,
  prefer: 'respond-async' | 'wait',
): Promise<{ id: string; status: string; ms: number }> {
  const idempotencyKey = randomUUID();
  const started = Date.now();
  for (;;) {
    const response = await api.post(
      `/tokens/${tokens.get(network)}/mint`,
      { network, amount: 1 },
      { 'idempotency-key': idempotencyKey, ...(prefer === 'wait' ? {} : { prefer }) },
    );
    const retryAfter = response.headers.get('retry-after');
    answers.push({ status: response.status, retryAfter });
    if (response.status === 200 || response.status === 202) {
      const { operation_id: id, status } = response.body.data;
      return { id, status, ms: Date.now() - started };
    }
    if (response.status !== 503)
      throw new Error(`mint answered ${JSON.stringify(summary(response))}`);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(Number(retryAfter) * 1_000, 1_000)),
    );
  }
}

/** The account's event stream, opened again from the last event seen whenever it ends. */
function followEvents(): { events: SseEvent[]; stop(): void } {
  const events: SseEvent[] = [];
  let stopped = false;
  let current: SseClient | undefined;
  void (async () => {
    while (!stopped) {
      const last = events.at(-1)?.id;
      current = await SseClient.open(`${stack.http.baseUrl}/events/stream`, {
        'api-key': apiKey,
        ...(last ? { 'last-event-id': last } : {}),
      }).catch(() => undefined);
      if (current?.status === 200) {
        const stream = current;
        let taken = 0;
        while (!stopped && !stream.ended) {
          // Short waits: a stop (which closes the stream) is seen within a second.
          await stream
            .waitFor(() => stream.events.length > taken || stream.ended, 1_000)
            .catch(() => undefined);
          events.push(...stream.events.slice(taken));
          taken = stream.events.length;
        }
        stream.close();
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  return {
    events,
    stop: () => {
      stopped = true;
      current?.close();
    },
  };
}

beforeAll(async () => {
  ha = await startPostgresHa();
  stack = await startServiceStack({
    postgresUrl: ha.url,
    env: {
      RATE_LIMIT_REQUESTS: '100000',
      SYNC_WAIT_MS: String(SYNC_WAIT_MS),
      // No polling fallback: the stream learns of new events only by its LISTEN wake-ups.
      EVENT_STREAM_POLL_MS: '600000',
    },
  });
  const client = await newAccountClient(stack.http);
  api = client.api;
  apiKey = client.key;
  tokens = await createConfirmedTokens(api, NETWORKS, {
    name: 'Failover',
    symbol: 'FO',
    amount: Number(initialSupply),
  });
});

afterAll(async () => {
  await stack?.stop();
  await ha?.stop();
});

it('keeps every write, once, through the death of the primary', async () => {
  const feed = followEvents();
  const accepted = new Map<ConcreteNetwork, string[]>(NETWORKS.map((network) => [network, []]));
  let flowing = true;
  const load = NETWORKS.flatMap((network) =>
    [0, 1].map(async () => {
      while (flowing) {
        accepted.get(network)!.push((await mintUntilAccepted(network, 'respond-async')).id);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }),
  );
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const before = await ha.primary();
    const promoted = await ha.killPrimary();
    expect(promoted).not.toBe(before);

    // A synchronous write now is woken when it confirms, not at SYNC_WAIT_MS.
    for (const network of NETWORKS) {
      const sync = await mintUntilAccepted(network, 'wait');
      expect(sync.status).toBe('confirmed');
      expect(sync.ms).toBeLessThan(10_000);
      accepted.get(network)!.push(sync.id);
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  } finally {
    flowing = false;
    await Promise.all(load);
  }

  // Only clean answers: accepted, or 503 with Retry-After while the endpoint had no primary.
  const unclean = answers.filter(
    ({ status, retryAfter }) =>
      status !== 200 && status !== 202 && !(status === 503 && retryAfter !== null),
  );
  expect(unclean).toEqual([]);
  expect(answers.filter(({ status }) => status === 503).length).toBeGreaterThan(0);

  const ids = NETWORKS.flatMap((network) => accepted.get(network)!);
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) {
    expect((await settledOperation(api, id, 60_000)).status).toBe('confirmed');
  }

  // The chain's own count: the supply grew by exactly the writes accepted.
  const evm = await evmTruth(stack.chains.evmRpcUrl, tokens.get('base')!, []);
  expect(evm.supply).toBe(initialSupply + BigInt(accepted.get('base')!.length));
  const solana = await solanaTruth(stack.chains.solanaRpcUrl, tokens.get('solana')!, []);
  expect(solana.supply).toBe(initialSupply + BigInt(accepted.get('solana')!.length));

  // The event stream carried every confirmation, across the failover.
  const confirmedInFeed = () =>
    new Set(
      feed.events
        .map((event) => JSON.parse(event.data) as { type: string; data: { operation_id?: string } })
        .filter((event) => event.type === 'operation.confirmed')
        .map((event) => event.data.operation_id),
    );
  for (const deadline = Date.now() + 30_000; ids.some((id) => !confirmedInFeed().has(id));) {
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  feed.stop();
  expect(ids.filter((id) => !confirmedInFeed().has(id))).toEqual([]);
});
