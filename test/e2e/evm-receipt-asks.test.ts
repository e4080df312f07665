import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import type { JsonRpcRecorder } from '@test/support/json-rpc-recorder';
import { evmReader } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';

jest.setTimeout(120_000);

/** Mints all sent at once, each waiting for its block; their receipts, lower case. */
async function mintWave(api: HttpClient, collection: string, count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, (i % 10) * 100));
      const response = await api.post(`/nfts/${collection}/mint`, {
        name: `Item ${i}`,
        images: ['https://example.com/i.png'],
      });
      expect(response.body).toMatchObject({ data: { status: 'confirmed' } });
      return (response.body.data.tx as string).toLowerCase();
    }),
  );
}

/**
 * What waiting for a block costs in RPC calls (public RPCs bill by the call, and rate-limit):
 * on a chain that mines every second, then every three, the worker reaching anvil through a
 * recorder of its JSON-RPC calls.
 */
describe('EVM receipts on a chain with 1 s blocks', () => {
  let stack: ServiceStack;
  let recorder: JsonRpcRecorder;
  let api: HttpClient;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      evmRecorder: true,
      chains: { evmBlockTimeSeconds: 1 },
      env: { RATE_LIMIT_REQUESTS: '100000' },
    });
    recorder = stack.evmRecorder!;
    ({ api } = await newAccountClient(stack.http));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("asks for a waiting mint's receipt about once", async () => {
    const created = await api.post('/nfts', {
      network: 'base',
      name: 'Receipts',
      symbol: 'RCP',
      description: 'Receipt asks',
      images: ['https://example.com/c.png'],
      max_supply: 1000,
    });
    expect(created.body).toMatchObject({ data: { status: 'confirmed' } });
    collection = created.body.data.mint_address as string;

    // Waves of mints, each sent while the previous ones wait for their block.
    const mints = await mintWave(api, collection, 30);

    const ours = new Set(mints);
    const asks = recorder
      .calls()
      .filter(
        (call) =>
          call.method === 'eth_getTransactionReceipt' &&
          ours.has(String(call.params[0]).toLowerCase()),
      ).length;
    // Each mint asks once, when the block scan sees its block; one sent before the scan began
    // (it was idle) asks when it starts watching as well. Before the scan told of blocks read
    // before a watch began, every mint asked twice (three times before that).
    expect(asks).toBeGreaterThanOrEqual(mints.length);
    expect(asks).toBeLessThanOrEqual(1.3 * mints.length);
  });

  it('looks at the head about a dozen times a block, and at each receipt about once, on 3 s blocks', async () => {
    const anvil = evmReader(stack.chains.evmRpcUrl);
    try {
      await anvil.send('evm_setIntervalMining', [3]);
      // Two blocks at the new pace first: the scan learns it as it goes.
      await mintWave(api, collection, 3);
      await mintWave(api, collection, 3);
      const firstBlock = await anvil.getBlockNumber();
      const from = recorder.calls().length;
      const mints = new Set(await mintWave(api, collection, 20));
      const blocks = (await anvil.getBlockNumber()) - firstBlock;
      const calls = recorder.calls().slice(from);
      const heads = calls.filter((call) => call.method === 'eth_blockNumber').length;
      const receipts = calls.filter(
        (call) =>
          call.method === 'eth_getTransactionReceipt' &&
          mints.has(String(call.params[0]).toLowerCase()),
      ).length;
      expect(blocks).toBeGreaterThanOrEqual(1);
      // Before: a look every 10 ms (about 300 a block), two receipt calls a second a mint.
      expect(heads / blocks).toBeLessThanOrEqual(20);
      expect(receipts).toBeLessThanOrEqual(1.3 * mints.size);
    } finally {
      await anvil.send('evm_setIntervalMining', [1]);
      anvil.destroy();
    }
  });
});
