import type { ConcreteNetwork } from '@app/config';
import { settledOperation, summary } from './envelope-assertions';
import type { HttpClient } from './http-client';

/** An async mint of one unit of the token, accepted (202) and then confirmed within `withinMs`. */
export async function asyncMintLands(
  api: HttpClient,
  token: string,
  network: ConcreteNetwork,
  withinMs: number,
): Promise<void> {
  const started = Date.now();
  const accepted = await api.post(
    `/tokens/${token}/mint`,
    { network, amount: 1 },
    { prefer: 'respond-async' },
  );
  expect(summary(accepted)).toMatchObject({ status: 202 });
  const settled = await settledOperation(api, accepted.body.data.operation_id, withinMs);
  expect(settled.status).toBe('confirmed');
  expect(Date.now() - started).toBeLessThan(withinMs);
}

/** Creates a whole-unit token (decimals 0) of `amount` on each network, synchronously confirmed. */
export async function createConfirmedTokens(
  api: HttpClient,
  networks: ConcreteNetwork[],
  token: { name: string; symbol: string; amount: number },
): Promise<Map<ConcreteNetwork, string>> {
  const created = new Map<ConcreteNetwork, string>();
  for (const network of networks) {
    const response = await api.post('/tokens', { network, ...token, decimals: 0 });
    expect(summary(response)).toMatchObject({
      status: 200,
      body: { data: { status: 'confirmed' } },
    });
    created.set(network, response.body.data.mint_address);
  }
  return created;
}
