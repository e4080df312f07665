import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import type { HttpClient, HttpResponse } from '@test/support/http-client';
import { freePort, startServiceProcess } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(300_000);

/**
 * Graceful shutdown: workers replaced one by one with SIGTERM while operations are in flight
 * finish or release their jobs, and an API instance stopped with SIGTERM answers the requests
 * it holds; no operation is lost or sent twice.
 */
describe('rolling restart', () => {
  let stack: ServiceStack;
  let api: HttpClient;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      workers: 2,
      env: { JOB_LOCK_MS: '2000', SHUTDOWN_DRAIN_MS: '1500' },
    });
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

  it('answers the requests an API instance holds at SIGTERM; clients fail over with their keys', async () => {
    const provider = evmReader(stack.chains.evmRpcUrl);
    const created = await api.post('/nfts', {
      network: 'base',
      name: 'API restart',
      description: 'an API instance stopped under load',
      images: ['https://example.com/a.png'],
    });
    expect(created.status).toBe(200);
    const fresh = created.body.data.mint_address as string;
    const portB = await freePort();
    const apiB = await startServiceProcess(
      'api',
      { ...stack.env, API_PORT: String(portB) },
      /API listening/,
    );
    const viaB = api.at(`http://127.0.0.1:${portB}`);

    let sigtermAt = Infinity;
    const answeredByA: { sentAt: number; answeredAt: number }[] = [];
    // A careful client: synchronous mints with an Idempotency-Key each, retried on the other
    // instance when the connection fails (refused, or closed under it).
    const mint = async (i: number): Promise<HttpResponse> => {
      const body = { name: `Restart ${i}`, images: ['https://example.com/a.png'] };
      const headers = { 'idempotency-key': `api-restart-${i}` };
      const sentAt = Date.now();
      try {
        const response = await api.post(`/nfts/${fresh}/mint`, body, headers);
        answeredByA.push({ sentAt, answeredAt: Date.now() });
        return response;
      } catch {
        return viaB.post(`/nfts/${fresh}/mint`, body, headers);
      }
    };
    const before = Array.from({ length: 30 }, (_, i) => mint(i));
    await new Promise((resolve) => setTimeout(resolve, 50));
    sigtermAt = Date.now();
    const stopped = stack.api.stop('SIGTERM');
    const after = Array.from({ length: 20 }, (_, i) => mint(30 + i));
    // Draining: the instance tells load balancers to stop sending it work.
    const health = await stack.http.get('/health');
    expect(health.status).toBe(503);
    expect(health.body.message).toMatch(/Shutting down/);
    const responses = await Promise.all([...before, ...after]);
    await stopped;
    await apiB.stop();

    expect(stack.api.process.signalCode).toBe('SIGTERM');
    // Requests that were waiting for their mint when the signal came were answered, not cut.
    expect(
      answeredByA.filter((a) => a.sentAt < sigtermAt && a.answeredAt > sigtermAt).length,
    ).toBeGreaterThan(0);
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
    const ids = new Set(responses.map((response) => response.body.data.operation_id as string));
    expect(ids.size).toBe(50);
    const rows = await queryDatabase<{ status: string }>(
      stack.services.databaseUrl,
      'SELECT status FROM operations WHERE id = ANY($1::uuid[])',
      [[...ids]],
    );
    expect(rows.map((row) => row.status)).toEqual(Array(50).fill('confirmed'));
    expect(await collectionAt(provider, fresh).totalMinted()).toBe(50n);
    provider.destroy();
  });
});
