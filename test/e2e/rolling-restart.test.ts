import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(300_000);

/**
 * Graceful shutdown: workers replaced one by one with SIGTERM while operations are in flight
 * finish or release their jobs, and no operation is lost or sent twice.
 */
describe('rolling restart of the workers', () => {
  let stack: ServiceStack;
  let api: HttpClient;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({ workers: 2, env: { JOB_LOCK_MS: '2000' } });
    ({ api } = await newAccountClient(stack.http));
    const created = await api.post('/nfts', {
      network: 'base',
      name: 'Rolling',
      description: 'restart under load',
      images: ['https://example.com/r.png'],
    });
    expect(created.status).toBe(200);
    collection = created.body.data.mint_address;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('completes every operation exactly once across SIGTERM restarts', async () => {
    const provider = evmReader(stack.chains.evmRpcUrl);
    const mint = (i: number) =>
      api.post(
        `/nfts/${collection}/mint`,
        { name: `Rolling ${i}`, images: ['https://example.com/r.png'] },
        { prefer: 'respond-async' },
      );
    const first = await Promise.all(Array.from({ length: 30 }, (_, i) => mint(i)));
    const [oldA, oldB] = stack.workers;
    await oldA.stop('SIGTERM');
    // Nest runs its shutdown hooks, then re-raises the signal: ended by SIGTERM, not SIGKILL.
    expect(oldA.process.signalCode).toBe('SIGTERM');
    await stack.startWorker();
    const second = await Promise.all(Array.from({ length: 30 }, (_, i) => mint(30 + i)));
    await oldB.stop('SIGTERM');
    expect(oldB.process.signalCode).toBe('SIGTERM');
    await stack.startWorker();

    const ids = [...first, ...second].map((response) => {
      expect(response.status).toBe(202);
      return response.body.data.operation_id as string;
    });
    const deadline = Date.now() + 120_000;
    let rows: { status: string; nonce: string }[] = [];
    while (Date.now() < deadline) {
      rows = await queryDatabase(
        stack.services.databaseUrl,
        'SELECT status, nonce FROM operations WHERE id = ANY($1::uuid[])',
        [ids],
      );
      if (rows.every((row) => row.status === 'confirmed')) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(rows.map((row) => row.status)).toEqual(Array(60).fill('confirmed'));
    expect(new Set(rows.map((row) => row.nonce)).size).toBe(60);
    expect(await collectionAt(provider, collection).totalMinted()).toBe(60n);
    provider.destroy();
  });
});
