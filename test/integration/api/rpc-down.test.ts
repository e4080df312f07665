import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Wallet } from 'ethers';
import { startApiInProcess } from '@test/support/api-app';
import { HttpClient } from '@test/support/http-client';
import { queryDatabase } from '@test/support/chain-reads';
import { freePort } from '@test/support/service-process';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

/**
 * When a chain's RPC does not answer: reads are a 502 envelope naming the network (not the URL,
 * which may carry credentials); a write is kept, answered 202, and goes on when the RPC returns.
 */
describe('an unreachable RPC', () => {
  let services: TestServices;
  let app: NestFastifyApplication;
  let api: HttpClient;

  beforeAll(async () => {
    services = await startTestServices();
    const deadPort = await freePort();
    ({ app } = await startApiInProcess(services, {
      LOCAL_EVM_RPC_URL: `http://127.0.0.1:${deadPort}/?apikey=secret-provider-key`,
      LOCAL_SOLANA_RPC_URL: `http://127.0.0.1:${deadPort}`,
      RPC_TIMEOUT_MS: '1000',
      SYNC_WAIT_MS: '500',
      QUEUE_PREFIX: `rpc-down-${deadPort}`,
    }));
    const session = new HttpClient(await app.getUrl());
    await session.post('/account/register', {
      email: `rpc-down-${deadPort}@example.com`,
      password: 'correct horse battery staple',
    });
    const key = (await session.post('/account/api-keys', {})).body.data.key;
    api = session.with({ 'api-key': key });
  });

  afterAll(async () => {
    await app.close();
    await services.stop();
  });

  it('answers a read with the 502 envelope, without the RPC URL', async () => {
    const response = await api.get(`/wallets/${Wallet.createRandom().address}`);
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ success: false, error: 'Bad gateway' });
    expect(response.body.message).toMatch(/base RPC did not answer/);
    expect(JSON.stringify(response.body)).not.toContain('secret-provider-key');
  });

  it('keeps a write and answers 202 with the operation to follow', async () => {
    const response = await api.post('/tokens', {
      network: 'base',
      name: 'Kept',
      symbol: 'KPT',
      amount: 1,
    });
    expect(response.status).toBe(202);
    expect(response.body.data).toMatchObject({ status: 'queued', kind: 'token.create' });
    const [row] = await queryDatabase<{ status: string }>(
      services.databaseUrl,
      'SELECT status FROM operations WHERE id = $1',
      [response.body.data.operation_id],
    );
    expect(row.status).toBe('queued');
  });
});
