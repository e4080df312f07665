import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import { expectConfirmedEnvelope, settledOperation } from '@test/support/envelope-assertions';
import type { HttpClient, HttpResponse } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

const IMAGE = 'https://example.com/redis-outage.png';

/**
 * Redis (the job transport) becomes unreachable while writes come in: Postgres is the source of
 * truth, so each write is stored and answered 202 at once (no wait for settlement news that
 * cannot come), and once Redis is back the reconciler enqueues it and it completes exactly once.
 */
describe('a Redis outage', () => {
  let stack: ServiceStack;
  let api: HttpClient;
  let wallet: string;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      redisProxy: true,
      // The reconciler re-enqueues what lost its job after 1 s instead of 30 s.
      env: { RECONCILE_AFTER_MS: '1000' },
    });
    const user = await newAccountClient(stack.http);
    api = user.api;
    wallet = user.account.wallets.find((w) => w.network === 'evm')!.public_key;
    const created = await api.post('/nfts', {
      network: 'base',
      name: 'Redis outage',
      description: 'minted through a Redis outage',
      images: [IMAGE],
    });
    collection = expectConfirmedEnvelope(created, 'base', /^0x[0-9a-f]{64}$/).mint_address;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** A synchronous write (no Prefer header) answered 202 within 2 s, its operation stored. */
  async function expectAcceptedAtOnce(send: () => Promise<HttpResponse>): Promise<string> {
    const started = Date.now();
    const response = await send();
    const elapsed = Date.now() - started;
    expect({ status: response.status, body: response.body }).toMatchObject({
      status: 202,
      body: { success: true, data: { status: 'queued' } },
    });
    expect(elapsed).toBeLessThan(2_000);
    const id = response.body.data.operation_id as string;
    const [row] = await queryDatabase<{ status: string }>(
      stack.services.databaseUrl,
      'SELECT status FROM operations WHERE id = $1',
      [id],
    );
    expect(row?.status).toBe('queued');
    return id;
  }

  // cut: connections are reset (Redis stopped); stall: they hang unanswered (a silent host).
  it.each(['cut', 'stall'] as const)(
    'answers writes 202 at once and completes each exactly once when Redis returns (%s)',
    async (outage) => {
      const provider = evmReader(stack.chains.evmRpcUrl);
      const items = collectionAt(provider, collection);
      const nonceBefore = await provider.getTransactionCount(wallet, 'latest');
      const itemsBefore = (await items.totalMinted()) as bigint;

      stack.redisProxy![outage]();
      let ids: string[];
      try {
        ids = [
          await expectAcceptedAtOnce(() =>
            api.post('/tokens', { network: 'base', name: 'Outage', symbol: 'OUT', amount: 7 }),
          ),
          await expectAcceptedAtOnce(() =>
            api.post(`/nfts/${collection}/mint`, { name: 'Through', images: [IMAGE] }),
          ),
        ];
        // Reads need Postgres alone.
        const read = await api.get(`/operations/${ids[0]}`);
        expect(read.status).toBe(200);
        expect(read.body.data.status).toBe('queued');
      } finally {
        stack.redisProxy!.restore();
      }

      const [token, item] = await Promise.all(ids.map((id) => settledOperation(api, id, 60_000)));
      expect(token.status).toBe('confirmed');
      expect(item.status).toBe('confirmed');
      // A few more reconciler rounds: nothing runs a second time.
      await new Promise((resolve) => setTimeout(resolve, 3_000));

      // Straight from the chain: one transaction each, one item.
      expect(await provider.getTransactionCount(wallet, 'latest')).toBe(nonceBefore + 2);
      expect(await items.totalMinted()).toBe(itemsBefore + 1n);
      const minted = await api.get(`/tokens/${token.mint_address as string}`);
      expect(minted.body.data).toMatchObject({ supply: '7' });
      provider.destroy();
    },
  );
});
