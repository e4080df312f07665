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
