import { Connection, PublicKey } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, getMint, getTokenGroupState } from '@solana/spl-token';
import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import { settledOperation } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

const IMAGE = 'https://example.com/outage.png';
const UNSETTLED = ['queued', 'signed', 'submitted'];

/**
 * The chains' RPC endpoints become unreachable (connections reset) while writes come in: the
 * writes are kept and answered 202, the worker retries instead of failing them, and once the
 * endpoints return each operation completes exactly once on chain.
 */
describe('a chain RPC outage', () => {
  let stack: ServiceStack;
  let api: HttpClient;
  const collections: Record<'base' | 'solana', string> = { base: '', solana: '' };

  beforeAll(async () => {
    stack = await startServiceStack({
      rpcProxies: true,
      env: { SYNC_WAIT_MS: '1500', RPC_TIMEOUT_MS: '1000' },
    });
    ({ api } = await newAccountClient(stack.http));
    for (const network of ['base', 'solana'] as const) {
      const created = await api.post('/nfts', {
        network,
        name: `Outage ${network}`,
        description: 'minted through an RPC outage',
        images: [IMAGE],
      });
      expect([200, 202]).toContain(created.status);
      const settled = await settledOperation(api, created.body.data.operation_id);
      expect(settled.status).toBe('confirmed');
      collections[network] = created.body.data.mint_address;
    }
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps writes made during the outage and completes each once when the RPC returns', async () => {
    for (const proxy of stack.rpcProxies) proxy.cut();
    const accepted = await Promise.all(
      (['base', 'solana'] as const).map((network) =>
        api.post(`/nfts/${collections[network]}/mint`, { name: 'Through', images: [IMAGE] }),
      ),
    );
    for (const response of accepted) {
      expect(response.status).toBe(202);
      expect(UNSETTLED).toContain(response.body.data.status);
    }
    const ids = accepted.map((response) => response.body.data.operation_id as string);

    // Several failed attempts later, the operations are still waiting, not failed.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const during = await queryDatabase<{ status: string }>(
      stack.services.databaseUrl,
      'SELECT status FROM operations WHERE id = ANY($1::uuid[])',
      [ids],
    );
    expect(during).toHaveLength(2);
    for (const row of during) expect(UNSETTLED).toContain(row.status);
    // ...because the worker tried, met the outage and backed off, more than once each.
    const warnings = stack.workers[0]
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; operationId?: string; attempt?: number })
      .filter((line) => line.level === 'warn');
    for (const id of ids) {
      const attempts = new Set(warnings.filter((w) => w.operationId === id).map((w) => w.attempt));
      expect(attempts.size).toBeGreaterThan(1);
    }

    for (const proxy of stack.rpcProxies) proxy.restore();
    const [evmMint, solanaMint] = await Promise.all(
      ids.map((id) => settledOperation(api, id, 60_000)),
    );
    expect(evmMint.status).toBe('confirmed');
    expect(solanaMint.status).toBe('confirmed');

    // Read straight from the chains, not through the proxies: one item each, no more.
    const provider = evmReader(stack.chains.evmRpcUrl);
    const evmCollection = collectionAt(provider, collections.base);
    expect(await evmCollection.totalMinted()).toBe(1n);
    expect(await evmCollection.ownerOf(BigInt(evmMint.token_id as string))).toBeTruthy();
    provider.destroy();

    const connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
    const group = getTokenGroupState(
      await getMint(
        connection,
        new PublicKey(collections.solana),
        'confirmed',
        TOKEN_2022_PROGRAM_ID,
      ),
    );
    expect(group?.size).toBe(1n);
    const item = await getMint(
      connection,
      new PublicKey(solanaMint.mint_address as string),
      'confirmed',
      TOKEN_2022_PROGRAM_ID,
    );
    expect(item.supply).toBe(1n);
  });
});
