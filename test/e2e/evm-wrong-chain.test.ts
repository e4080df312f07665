import { Wallet, parseEther, toBeHex, type JsonRpcProvider } from 'ethers';
import { startAnvil, type AnvilHandle } from '@app/localnet/anvil';
import { evmReader } from '@test/support/chain-reads';
import { summary } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { createBaseCollection } from '@test/support/nft-requests';
import { freePort } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

/**
 * A network's preferred RPC URL leads to a node of another chain (a copy-paste slip, a provider
 * switching a URL over), the second to the right one. Nothing of the network may come from the
 * other chain: its balances would be another chain's, and its sends refused or, worse, replayed.
 */
describe('an RPC endpoint of another chain', () => {
  let other: AnvilHandle;
  let stack: ServiceStack;
  let api: HttpClient;
  let right: JsonRpcProvider;
  let wrong: JsonRpcProvider;

  beforeAll(async () => {
    other = await startAnvil({ port: 0, chainId: 1 });
    const evmPort = await freePort();
    stack = await startServiceStack({
      chains: { evmPort },
      env: { LOCAL_EVM_RPC_URL: `${other.url},http://127.0.0.1:${evmPort}` },
    });
    right = evmReader(stack.chains.evmRpcUrl);
    wrong = evmReader(other.url);
    ({ api } = await newAccountClient(stack.http));
  });

  afterAll(async () => {
    right?.destroy();
    wrong?.destroy();
    await stack?.stop();
    await other?.stop();
  });

  it("reads and sends on the network's own chain only, and says why the other is passed over", async () => {
    const address = Wallet.createRandom().address;
    await wrong.send('anvil_setBalance', [address, toBeHex(parseEther('5'))]);
    const read = await api.get(`/wallets/${address}?network=base`);
    expect(summary(read)).toMatchObject({ status: 200, body: { data: { balance: '0.0' } } });

    const collection = await createBaseCollection(api, 'Right chain', 'one chain only');
    expect(await right.getCode(collection)).not.toBe('0x');
    expect(await wrong.getCode(collection)).toBe('0x');

    const health = await stack.http.get('/health');
    const base = (health.body.data.chains as { chain: string; endpoints: unknown[] }[]).find(
      (entry) => entry.chain === 'evm:31337',
    );
    expect(base?.endpoints).toMatchObject([
      { index: 0, state: 'cooling_down' },
      { index: 1, state: 'up' },
    ]);
    expect(stack.api.output()).toContain('(it serves chain 1, not 31337)');
  });
});
