import { Keypair } from '@solana/web3.js';
import { Wallet } from 'ethers';
import { AssetIssuanceClient, AssetIssuanceError } from '@asset-issuance/client';
import { HttpClient, recordResponses, type RecordedResponse } from '@test/support/http-client';
import { OpenApiConformance } from '@test/support/openapi-conformance';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

/**
 * The typed client (libs/client) against the whole service on the local stack: one NFT flow per
 * chain through the client only. Every response of the suite, the client's and the error cases'
 * alike, is then checked against the OpenAPI document the service serves.
 */

let stack: ServiceStack;
let recorded: RecordedResponse[];
let client: AssetIssuanceClient;
let session: HttpClient;
/** What the per-chain flows made, for the other routes' tests. */
const collections: Record<string, string> = {};

/** The client's fetch, keeping each response for the conformance check. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const text = await response.clone().text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  recorded.push({
    method: init?.method ?? 'GET',
    url: response.url,
    status: response.status,
    body,
  });
  return response;
};

beforeAll(async () => {
  stack = await startServiceStack({ env: { RATE_LIMIT_REQUESTS: '100000' } });
  recorded = recordResponses();
  const { key } = await newAccountClient(stack.http);
  client = new AssetIssuanceClient({
    baseUrl: stack.http.baseUrl,
    apiKey: key,
    fetch: recordingFetch,
  });
  session = new HttpClient(stack.http.baseUrl);
  await session.post('/account/register', {
    email: `client-${Date.now()}@example.com`,
    password: 'correct horse battery staple',
  });
});

afterAll(async () => {
  await stack?.stop();
});

const flows = [
  { network: 'solana', recipient: () => Keypair.generate().publicKey.toBase58() },
  { network: 'evm', recipient: () => Wallet.createRandom().address },
] as const;

describe.each(flows)('the client on $network', ({ network, recipient }) => {
  it('creates a collection, mints, transfers, waits and reads the item back', async () => {
    const collection = await client.post('/nfts', {
      body: {
        network,
        name: 'Client Cats',
        description: 'Made through @asset-issuance/client',
        images: ['https://example.com/cat.png'],
      },
    });
    expect(collection).toMatchObject({ kind: 'nft.create', status: 'confirmed' });
    const address = collection.mint_address!;
    collections[network] = address;

    const minted = await client.post('/nfts/{mint_address}/mint', {
      path: { mint_address: address },
      body: { name: 'Cat #1', images: ['https://example.com/cat-1.png'], network },
      respondAsync: true,
    });
    expect(minted.kind).toBe('nft.mint');
    const mint = await client.waitForOperation(minted.operation_id, { timeoutMs: 60_000 });
    expect(mint.status).toBe('confirmed');
    const tokenId = mint.token_id!;

    const to = recipient();
    const transfer = await client.post('/nfts/{mint_address}/transfer', {
      path: { mint_address: address },
      body: { recipient: to, token_id: tokenId, network },
      respondAsync: true,
    });
    const settled = await client.waitForOperation(transfer.operation_id);
    expect(settled).toMatchObject({ status: 'confirmed', recipient: to, token_id: tokenId });

    const item = await client.get('/nfts/{mint_address}', {
      path: { mint_address: address },
      query: { token_id: tokenId, network },
      headers: { 'cache-control': 'no-cache' },
    });
    expect(item).toMatchObject({ type: 'item', owner: to, burned: false, token_id: tokenId });
    const read = await client.get('/nfts/{mint_address}', {
      path: { mint_address: address },
      query: { network },
    });
    expect(read).toMatchObject({ type: 'collection', minted: '1' });
  });
});

describe('the client', () => {
  it('replays a write sent again with its Idempotency-Key', async () => {
    const body = { network: 'solana' as const, name: 'Coin', symbol: 'CN', amount: '1000' };
    const first = await client.post('/tokens', { body, idempotencyKey: 'client-e2e-token' });
    const again = await client.post('/tokens', { body, idempotencyKey: 'client-e2e-token' });
    expect(again.operation_id).toBe(first.operation_id);
    const token = await client.get('/tokens/{mint_address}', {
      path: { mint_address: first.mint_address! },
    });
    expect(token).toMatchObject({ symbol: 'CN', supply: '1000' });
  });

  it('mints, transfers and burns a token, and reports a refused transfer', async () => {
    const token = await client.post('/tokens', {
      body: { network: 'solana', name: 'Gold', symbol: 'GLD', amount: '100', decimals: 2 },
    });
    const path = { mint_address: token.mint_address! };
    await client.post('/tokens/{mint_address}/mint', { path, body: { amount: '5' } });
    const to = Keypair.generate().publicKey.toBase58();
    await client.post('/tokens/{mint_address}/transfer', {
      path,
      body: { recipient: to, amount: 1 },
    });
    await client.post('/tokens/{mint_address}/burn', { path, body: { amount: '0.5' } });
    expect(await client.get('/tokens/{mint_address}', { path })).toMatchObject({
      supply: '104.5',
    });
    const refused = await client
      .post('/tokens/{mint_address}/transfer', { path, body: { recipient: to, amount: '1000' } })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(AssetIssuanceError);
    expect((refused as AssetIssuanceError).status).toBeGreaterThanOrEqual(400);
  });

  it('mints and burns an EVM item, and reads the burned item and its hosted metadata', async () => {
    const path = { mint_address: collections.evm };
    const minted = await client.post('/nfts/{mint_address}/mint', {
      path,
      body: { name: 'Cat #2', images: ['https://example.com/cat-2.png'], network: 'evm' },
    });
    expect(minted.status).toBe('confirmed');
    const burned = await client.post('/nfts/{mint_address}/burn', {
      path,
      body: { tokenId: minted.token_id!, network: 'evm' },
    });
    expect(burned.status).toBe('confirmed');
    const item = await client.get('/nfts/{mint_address}', {
      path,
      query: { token_id: minted.token_id!, network: 'evm' },
    });
    expect(item).toMatchObject({ type: 'item', burned: true, owner: null });
    const metadata = await client.get('/metadata/{id}', {
      path: { id: new URL(minted.metadata_uri!).pathname.split('/').pop()! },
    });
    expect(metadata).toMatchObject({ name: 'Cat #2' });
  });

  it('manages webhooks and API keys', async () => {
    const hook = await client.post('/webhooks', {
      body: { url: 'http://127.0.0.1:9/hook', event_types: ['operation.confirmed'] },
    });
    const id = { id: hook.id };
    await client.get('/webhooks/{id}', { path: id });
    await client.post('/webhooks/{id}/rotate-secret', {
      path: id,
      body: { grace_period_seconds: 0 },
    });
    const ping = await client.post('/webhooks/{id}/ping', { path: id });
    await client.post('/webhooks/{id}/replay', {
      path: id,
      body: { delivery_id: ping.delivery_id },
    });
    await client.delete('/webhooks/{id}', { path: id });
    const issued = await session.post('/account/api-keys', { name: 'spare' });
    expect((await session.delete(`/account/api-keys/${issued.body.data.id}`)).status).toBe(200);
    const email = `login-${Date.now()}@example.com`;
    const other = new HttpClient(stack.http.baseUrl);
    await other.post('/account/register', { email, password: 'correct horse battery staple' });
    expect((await other.post('/account/logout')).status).toBe(200);
    expect(
      (await other.post('/account/login', { email, password: 'wrong password!!' })).status,
    ).toBe(401);
    expect(
      (await other.post('/account/login', { email, password: 'correct horse battery staple' }))
        .status,
    ).toBe(200);
  });

  it('throws AssetIssuanceError with the envelope of an error', async () => {
    const error = await client
      .get('/operations/{operation_id}', { path: { operation_id: 'no-such-operation' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AssetIssuanceError);
    expect(error).toMatchObject({ status: 404, error: 'Not found' });
  });

  it('reads the other routes of an account', async () => {
    const wallet = await client.post('/wallets', { body: { network: 'evm' } });
    await client.get('/wallets/{wallet_address}', { path: { wallet_address: wallet.public_key } });
    await client.get('/networks');
    await client.get('/health');
    await client.get('/account/usage', { query: { window: 'day' } });
    await client.get('/account/audit', { query: { limit: 5 } });
    const events = await client.get('/events', { query: { limit: 50 } });
    expect(events.events.length).toBeGreaterThan(0);
    const hook = await client.post('/webhooks', { body: { url: 'http://127.0.0.1:9/hook' } });
    await client.get('/webhooks');
    await client.patch('/webhooks/{id}', { path: { id: hook.id }, body: { enabled: false } });
    await client.get('/webhooks/{id}/deliveries', { path: { id: hook.id } });
    await client.delete('/webhooks/{id}', { path: { id: hook.id } });
    const operation = events.events.find((event) => event.type === 'operation.confirmed')!;
    const operationId = String(operation.data.operation_id);
    await client.get('/account/operations/{operation_id}', {
      path: { operation_id: operationId },
    });
    await session.get('/account');
    await session.get('/account/operations?limit=5');
    await session.get('/account/api-keys');
    await session.get('/account/wallets');
    const assets = await client.get('/account/assets', { query: { limit: 50 } });
    const collection = assets.assets.find((asset) => asset.kind === 'collection')!;
    const items = await client.get('/account/assets/{address}/items', {
      path: { address: collection.mint_address },
      query: { network: collection.network as 'base' },
    });
    expect(items.items.length).toBeGreaterThan(0);
  });

  it('answers errors as documented', async () => {
    const anonymous = new HttpClient(stack.http.baseUrl);
    expect(
      (await anonymous.get('/tokens/So11111111111111111111111111111111111111112')).status,
    ).toBe(401);
    expect((await session.post('/nfts', {})).status).toBe(401);
    const api = stack.http.with({
      'api-key': (client as unknown as { options: { apiKey: string } }).options.apiKey,
    });
    expect((await api.post('/wallets', { network: 'moon' })).status).toBe(400);
    expect((await api.post('/nfts', { network: 'solana' })).status).toBe(400);
    expect((await api.get('/account/usage?window=year')).status).toBe(400);
    const reused = await api.post(
      '/tokens',
      { network: 'solana', name: 'Other', symbol: 'OT', amount: '1' },
      { 'idempotency-key': 'client-e2e-token' },
    );
    expect(reused.status).toBe(409);
    expect((await api.get('/webhooks/7a0f5c8e-7a71-4d6b-9b43-0b7c1f0f2a11')).status).toBe(404);
  });

  it('answered everything above as the OpenAPI document says', async () => {
    const document = (await stack.http.get('/docs/json')).body;
    const conformance = new OpenApiConformance(document);
    const checked = recorded.filter(
      (response) => !new URL(response.url).pathname.startsWith('/docs'),
    );
    expect(conformance.check(checked)).toEqual([]);
    const covered = conformance.covered(checked);
    for (const exercised of [
      'POST /nfts 200',
      'POST /nfts/{mint_address}/mint 202',
      'POST /nfts/{mint_address}/transfer 202',
      'GET /operations/{operation_id} 200',
      'GET /nfts/{mint_address} 200',
      'POST /tokens 200',
      'GET /operations/{operation_id} 404',
      'POST /tokens 409',
      'POST /wallets 400',
      'GET /tokens/{mint_address} 401',
      'POST /tokens/{mint_address}/transfer 200',
      'POST /nfts/{mint_address}/burn 200',
      'GET /metadata/{id} 200',
      'POST /webhooks/{id}/replay 200',
      'POST /account/login 401',
      'GET /account/assets 200',
      'GET /account/assets/{address}/items 200',
    ]) {
      expect(covered).toContain(exercised);
    }
  });
});
