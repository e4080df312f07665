import { operationQueueName, queueShardOf } from '@app/queue';
import { HttpClient } from '@test/support/http-client';
import { freePort } from '@test/support/service-process';
import { sample } from '@test/support/prometheus-text';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

const ADMIN = { authorization: `Basic ${Buffer.from('ops:metrics-secret').toString('base64')}` };

describe('metrics', () => {
  let stack: ServiceStack;
  let workerMetrics: HttpClient;

  beforeAll(async () => {
    const metricsPort = await freePort();
    stack = await startServiceStack({
      env: { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'metrics-secret' },
      workerEnv: { WORKER_METRICS_PORT: String(metricsPort) },
    });
    workerMetrics = new HttpClient(`http://127.0.0.1:${metricsPort}`);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps /metrics behind the admin credentials', async () => {
    expect((await stack.http.get('/metrics')).status).toBe(401);
  });

  it('shows the HTTP, operation, queue and job series moving after a mint', async () => {
    const { api, account } = await newAccountClient(stack.http);
    const signer = account.wallets.find((wallet) => wallet.network === 'evm')!.public_key;
    // The account's operations on base all go to its wallet's shard queue.
    const queue = operationQueueName('base', queueShardOf(signer, 4));
    const created = await api.post('/nfts', {
      network: 'base',
      name: 'Metrics',
      description: 'metrics collection',
      images: ['https://example.com/m.png'],
    });
    expect(created.status).toBe(200);
    const route = '/nfts/:mint_address/mint';
    const mint = () =>
      api.post(`/nfts/${created.body.data.mint_address}/mint`, {
        name: 'Measured',
        images: ['https://example.com/m.png'],
      });

    const scrape = async () => ({
      api: String((await stack.http.get('/metrics', ADMIN)).body),
      worker: String((await workerMetrics.get('/metrics')).body),
    });
    const before = await scrape();
    expect((await mint()).status).toBe(200);
    const after = await scrape();

    const moved = (text: 'api' | 'worker', name: string, labels: Record<string, string>) =>
      sample(after[text], name, labels) - sample(before[text], name, labels);
    expect(
      moved('api', 'ais_http_request_duration_seconds_count', {
        method: 'POST',
        route,
        status: '200',
      }),
    ).toBe(1);
    expect(
      moved('api', 'ais_operations_total', { kind: 'nft.mint', network: 'base', status: 'queued' }),
    ).toBe(1);
    expect(
      moved('worker', 'ais_operations_total', {
        kind: 'nft.mint',
        network: 'base',
        status: 'confirmed',
      }),
    ).toBe(1);
    expect(
      moved('worker', 'ais_job_duration_seconds_count', {
        queue,
        outcome: 'completed',
      }),
    ).toBe(1);
    expect(after.api).toContain(`ais_queue_jobs{queue="${queue}",state="waiting"} 0`);
    expect(after.worker).toMatch(/# TYPE ais_rpc_errors_total counter/);
    expect(after.worker).toMatch(/# TYPE ais_nonce_ledger_resyncs_total counter/);
    expect(after.worker).toMatch(/# TYPE ais_evm_reorged_receipts_total counter/);
  });
});
