import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { startJsonRpcRecorder, type JsonRpcRecorder } from '@test/support/json-rpc-recorder';
import { freePort } from '@test/support/service-process';
import type { HttpClient } from '@test/support/http-client';

jest.setTimeout(120_000);

/**
 * What waiting for a block costs in RPC calls (public RPCs bill by the call): on a chain that
 * mines every second, the worker reaching anvil through a recorder of its JSON-RPC calls.
 */
describe('EVM receipts on a chain with 1 s blocks', () => {
  let stack: ServiceStack;
  let recorder: JsonRpcRecorder;
  let api: HttpClient;

  beforeAll(async () => {
    const evmPort = await freePort();
    recorder = await startJsonRpcRecorder(`http://127.0.0.1:${evmPort}`);
    stack = await startServiceStack({
      chains: { evmPort, evmBlockTimeSeconds: 1 },
      env: { RATE_LIMIT_REQUESTS: '100000', LOCAL_EVM_RPC_URL: recorder.url },
    });
    ({ api } = await newAccountClient(stack.http));
  });

  afterAll(async () => {
    await stack?.stop();
    await recorder?.close();
  });

  it("asks for a waiting mint's receipt about twice, not three times", async () => {
    const created = await api.post('/nfts', {
      network: 'base',
      name: 'Receipts',
      symbol: 'RCP',
      description: 'Receipt asks',
      images: ['https://example.com/c.png'],
      max_supply: 1000,
    });
    expect(created.body).toMatchObject({ data: { status: 'confirmed' } });
    const collection = created.body.data.mint_address as string;

    // Waves of mints, each sent while the previous ones wait for their block.
    const mints = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, (i % 10) * 100));
        const response = await api.post(`/nfts/${collection}/mint`, {
          name: `Item ${i}`,
          images: ['https://example.com/i.png'],
        });
        expect(response.body).toMatchObject({ data: { status: 'confirmed' } });
        return (response.body.data.tx as string).toLowerCase();
      }),
    );

    const ours = new Set(mints);
    const asks = recorder
      .calls()
      .filter(
        (call) =>
          call.method === 'eth_getTransactionReceipt' &&
          ours.has(String(call.params[0]).toLowerCase()),
      ).length;
    // Each mint asks once after it starts watching the block scan, and once when the scan sees
    // its block; a mint that finds the scan idle first asks before watching too (3).
    expect(asks).toBeGreaterThanOrEqual(2 * mints.length);
    expect(asks).toBeLessThanOrEqual(2.2 * mints.length);
  });
});
