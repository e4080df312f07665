import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { HttpClient } from '@test/support/http-client';
import type { JsonRpcRecorder } from '@test/support/json-rpc-recorder';
import { freePort, startServiceProcess, type ServiceProcess } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

/**
 * Chain-backed reads (a token's supply, an item's owner, a wallet's balance) through the cache:
 * two API instances (A, the stack's, and B) and a worker, reaching anvil through a recorder of
 * their JSON-RPC calls. One of our operations settling shows at once on both; a change made outside the
 * service shows within the TTL; concurrent cold readers make one RPC call.
 */

const TTL_MS = 1_500;
const IMAGE = 'https://example.com/image.png';

let stack: ServiceStack;
let recorder: JsonRpcRecorder;
let apiB: ServiceProcess;
let provider: JsonRpcProvider;
/** The same account's clients on instance A and on instance B. */
let a: HttpClient;
let b: HttpClient;

beforeAll(async () => {
  // The service reaches anvil through the recorder (its URL names the chain: one for all).
  stack = await startServiceStack({
    evmRecorder: true,
    env: { RATE_LIMIT_REQUESTS: '100000', CHAIN_READ_CACHE_TTL_MS: String(TTL_MS) },
  });
  recorder = stack.evmRecorder!;
  const port = await freePort();
  apiB = await startServiceProcess(
    'api',
    { ...stack.env, API_PORT: String(port) },
    /API listening/,
  );
  provider = new JsonRpcProvider(stack.chains.evmRpcUrl, undefined, { cacheTimeout: -1 });
  a = (await newAccountClient(stack.http)).api;
  b = a.at(`http://127.0.0.1:${port}`);
  // An instance hears settlements once it has read a chain: from then on it keeps what it reads.
  for (const client of [a, b]) {
    expect((await client.get(`/wallets/${Wallet.createRandom().address}`)).status).toBe(200);
  }
});

afterAll(async () => {
  provider?.destroy();
  await apiB?.stop();
  await stack?.stop();
});

async function confirmed(client: HttpClient, path: string, body: object) {
  const response = await client.post(path, body);
  expect(response.status).toBe(200);
  expect(response.body.data.status).toBe('confirmed');
  return response.body.data;
}

async function newToken(): Promise<string> {
  const token = await confirmed(a, '/tokens', {
    network: 'base',
    name: 'Cached',
    symbol: 'CCH',
    decimals: 0,
    amount: 1000,
  });
  return token.mint_address;
}

async function read(client: HttpClient, path: string, headers: Record<string, string> = {}) {
  const response = await client.get(path, headers);
  expect(response.status).toBe(200);
  return response.body.data;
}

describe('chain reads through the cache', () => {
  it('shows a settled operation at once on both instances, having served the cache before', async () => {
    const mint = await newToken();
    for (const client of [a, b]) {
      expect(await read(client, `/tokens/${mint}`)).toMatchObject({ supply: '1000' });
      const again = await read(client, `/tokens/${mint}`);
      expect(again).toMatchObject({ supply: '1000', cached: true, as_of: expect.any(String) });
    }

    await confirmed(a, `/tokens/${mint}/mint`, { amount: 5 });
    // No wait: B learnt of the settlement on the settlement channel, A from its own write.
    for (const client of [a, b]) {
      expect(await read(client, `/tokens/${mint}`)).toMatchObject({
        supply: '1005',
        cached: false,
      });
    }
  });

  it("shows an item's new owner at once after our transfer, on the other instance", async () => {
    const collection = await confirmed(a, '/nfts', {
      network: 'base',
      name: 'Cached items',
      symbol: 'CIT',
      description: 'Items read through the cache',
      images: [IMAGE],
    });
    const item = await confirmed(a, `/nfts/${collection.mint_address}/mint`, {
      name: 'Item',
      description: 'An item',
      images: [IMAGE],
    });
    const path = `/nfts/${collection.mint_address}?token_id=${item.token_id}`;
    const before = await read(b, path);
    expect(await read(b, path)).toMatchObject({ owner: before.owner, cached: true });

    const recipient = Wallet.createRandom().address;
    await confirmed(a, `/nfts/${collection.mint_address}/transfer`, {
      token_id: item.token_id,
      recipient,
    });
    expect(await read(b, path)).toMatchObject({ owner: recipient, cached: false });
  });

  it("shows a collection's minted count and a burned item at once, on the other instance", async () => {
    // Both are Postgres's, kept in the collection's cache group until one of our operations on
    // it settles: read twice on B (the second from B's cache), then changed through A.
    const collection = await confirmed(a, '/nfts', {
      network: 'base',
      name: 'Counted items',
      symbol: 'CNT',
      description: 'A minted count read through the cache',
      images: [IMAGE],
    });
    const path = `/nfts/${collection.mint_address}`;
    for (let i = 0; i < 2; i += 1) expect(await read(b, path)).toMatchObject({ minted: '0' });

    const item = await confirmed(a, `${path}/mint`, {
      name: 'Item',
      description: 'An item',
      images: [IMAGE],
    });
    expect(await read(b, path)).toMatchObject({ minted: '1' });

    const itemPath = `${path}?token_id=${item.token_id}`;
    for (let i = 0; i < 2; i += 1) expect(await read(b, itemPath)).toMatchObject({ burned: false });
    await confirmed(a, `${path}/burn`, { tokenId: Number(item.token_id) });
    expect(await read(b, itemPath)).toMatchObject({ burned: true, owner: null });
    expect(await read(b, path)).toMatchObject({ minted: '1' });
  });

  it('shows a change made outside the service within the TTL, marked cached until then', async () => {
    const address = Wallet.createRandom().address;
    await read(b, `/wallets/${address}`);
    expect(await read(b, `/wallets/${address}`)).toMatchObject({
      balance_base_units: '0',
      cached: true,
    });

    await provider.send('anvil_setBalance', [address, '0x' + parseEther('3').toString(16)]);
    const changed = Date.now();
    for (;;) {
      const wallet = await read(b, `/wallets/${address}`);
      if (wallet.balance === '3.0') {
        expect(wallet.cached).toBe(false);
        break;
      }
      expect(wallet).toMatchObject({ balance_base_units: '0', cached: true });
      // Stale for at most the TTL after the change (plus a slow answer's way back).
      expect(Date.now() - changed).toBeLessThan(TTL_MS + 1_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it('reads the chain now for Cache-Control: no-cache, and keeps that answer', async () => {
    const address = Wallet.createRandom().address;
    await read(b, `/wallets/${address}`);
    await provider.send('anvil_setBalance', [address, '0x' + parseEther('2').toString(16)]);

    const live = await read(b, `/wallets/${address}`, { 'cache-control': 'no-cache' });
    expect(live).toMatchObject({ balance: '2.0', cached: false });
    expect(await read(b, `/wallets/${address}`)).toMatchObject({
      balance: '2.0',
      cached: true,
      as_of: live.as_of,
    });
  });

  it('makes one RPC call for concurrent cold readers of one key', async () => {
    const mint = await newToken();
    recorder.holdEthCalls(300);
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => read(b, `/tokens/${mint}`)),
      );
      expect(answers.map((answer) => answer.supply)).toEqual(Array(20).fill('1000'));
      expect(new Set(answers.map((answer) => answer.as_of)).size).toBe(1);
    } finally {
      recorder.holdEthCalls(0);
    }
    expect(recorder.ethCallsTo(mint)).toHaveLength(1);
  });
});
