import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { NETWORKS } from '@app/config';
import { startApiInProcess } from '@test/support/api-app';
import type { HttpClient } from '@test/support/http-client';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

/** GET /networks: every name of the spec with the chain it runs on and its explorer pages. */
describe('GET /networks', () => {
  let services: TestServices;
  const apps: NestFastifyApplication[] = [];

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await services?.stop();
  });

  async function api(env: Record<string, string>): Promise<HttpClient> {
    const { app, http } = await startApiInProcess(services, env);
    apps.push(app);
    return http;
  }

  it('lists the local chains without explorers, publicly', async () => {
    const answer = await (await api({})).get('/networks');
    expect(answer.status).toBe(200);
    const networks = answer.body.data.networks;
    expect(networks.map((n: { network: string }) => n.network)).toEqual([...NETWORKS]);
    expect(networks.find((n: { network: string }) => n.network === 'evm')).toEqual({
      network: 'evm',
      resolved_network: 'base',
      family: 'evm',
      chain_id: 31337,
      currency: 'ETH',
      explorer_tx_url: null,
      explorer_address_url: null,
    });
  });

  it('gives the explorer page templates of public networks', async () => {
    const http = await api({
      APP_PROFILE: 'devnet',
      MASTER_KEYS: `k:${Buffer.alloc(32, 7).toString('base64')}`,
      SESSION_COOKIE_SECURE: 'false',
    });
    const networks: Record<string, unknown>[] = (await http.get('/networks')).body.data.networks;
    expect(networks.find((n) => n.network === 'solana')).toMatchObject({
      chain_id: null,
      explorer_tx_url: 'https://explorer.solana.com/tx/{tx}?cluster=devnet',
      explorer_address_url: 'https://explorer.solana.com/address/{address}?cluster=devnet',
    });
    expect(networks.find((n) => n.network === 'polygon')).toMatchObject({
      chain_id: 80002,
      currency: 'POL',
      explorer_tx_url: 'https://amoy.polygonscan.com/tx/{tx}',
    });
  });
});
