import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import { assetCollectionArtifact, assetTokenArtifact } from '@app/chains';
import { batchItems, settledBatch } from '@test/support/airdrops';
import { queryDatabase } from '@test/support/chain-reads';
import { expectError, summary, UUID, type Data } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(240_000);

/**
 * Airdrops on EVM end to end (contract, "Airdrops"): one request of hundreds of mints is checked
 * all or nothing, packed into few transactions, and lands exactly once, read from the chain.
 */

const IMAGE = 'https://example.com/image.png';

let stack: ServiceStack;
let provider: JsonRpcProvider;
let api: HttpClient;

beforeAll(async () => {
  stack = await startServiceStack({ env: { RATE_LIMIT_REQUESTS: '100000' } });
  provider = new JsonRpcProvider(stack.chains.evmRpcUrl, undefined, { cacheTimeout: -1 });
  ({ api } = await newAccountClient(stack.http));
});

afterAll(async () => {
  provider?.destroy();
  await stack?.stop();
});

const recipients = (n: number): string[] =>
  Array.from({ length: n }, () => Wallet.createRandom().address);

async function created(path: string, body: Data): Promise<string> {
  const response = await api.post(path, body);
  expect(summary(response)).toMatchObject({ status: 200 });
  return response.body.data.mint_address as string;
}

/** Distinct transactions among the entries, each read from the chain: mined and successful. */
async function minedTransactions(items: Data[]): Promise<Set<string>> {
  const hashes = new Set(items.map((item) => item.tx as string));
  for (const hash of hashes) expect((await provider.getTransactionReceipt(hash))?.status).toBe(1);
  return hashes;
}

async function batchRows(): Promise<number> {
  const [row] = await queryDatabase<{ n: number }>(
    stack.env.DATABASE_URL,
    'SELECT count(*)::int AS n FROM batches',
  );
  return row.n;
}

describe('NFT airdrop', () => {
  it('mints 500 items to 500 recipients exactly once, in far fewer transactions', async () => {
    const address = await created('/nfts', {
      network: 'base',
      name: 'Drop',
      symbol: 'DRP',
      description: 'An airdropped collection',
      images: [IMAGE],
    });
    const to = recipients(500);
    const response = await api.post(`/nfts/${address}/airdrop`, {
      items: to.map((recipient, i) => ({ recipient, name: `Drop #${i}`, images: [IMAGE] })),
    });
    expect(summary(response)).toMatchObject({ status: 202 });
    const accepted = response.body.data as Data;
    expect(accepted).toMatchObject({
      batch_id: expect.stringMatching(UUID),
      kind: 'nft.airdrop',
      network: 'base',
      total: 500,
    });

    const batch = await settledBatch(api, accepted.batch_id);
    expect(batch).toMatchObject({
      status: 'completed',
      counts: { queued: 0, submitted: 0, confirmed: 500, failed: 0 },
    });
    const items = await batchItems(api, accepted.batch_id);
    expect(items.map((item) => item.index)).toEqual(to.map((_, i) => i));

    const collection = new Contract(address, assetCollectionArtifact.abi, provider);
    expect(await collection.getFunction('totalMinted').staticCall()).toBe(500n);
    const tokenIds = new Set(items.map((item) => item.token_id as string));
    expect(tokenIds.size).toBe(500);
    for (const item of items) {
      expect(item).toMatchObject({ status: 'confirmed', recipient: to[item.index], error: null });
      expect(await collection.getFunction('ownerOf').staticCall(item.token_id)).toBe(
        to[item.index],
      );
    }
    const transactions = await minedTransactions(items);
    expect(transactions.size).toBeLessThanOrEqual(10);

    // Each entry is an operation of its own, and its metadata is served at its token URI.
    const sample = items[123];
    const operation = await api.get(`/operations/${sample.operation_id}`);
    expect(operation.body.data).toMatchObject({
      status: 'confirmed',
      kind: 'nft.mint',
      tx: sample.tx,
      token_id: sample.token_id,
    });
    const uri = (await collection.getFunction('tokenURI').staticCall(sample.token_id)) as string;
    const document = await stack.http.get(new URL(uri).pathname);
    expect(document.body).toMatchObject({ name: 'Drop #123', image: IMAGE });

    const events = await api.get('/events?limit=1000');
    const completed = (events.body.data.events as Data[]).filter(
      (event) => event.type === 'batch.completed',
    );
    expect(completed.map((event) => event.data)).toEqual([
      expect.objectContaining({ batch_id: accepted.batch_id, status: 'completed' }),
    ]);
  });
});

describe('token airdrop', () => {
  it('mints to 1,000 recipients exactly once, in far fewer transactions', async () => {
    const address = await created('/tokens', {
      network: 'base',
      name: 'Points',
      symbol: 'PTS',
      amount: 1,
      decimals: 2,
    });
    const to = recipients(1_000);
    const response = await api.post(
      `/tokens/${address}/airdrop`,
      { recipients: to.map((recipient, i) => ({ recipient, amount: `${i + 1}.5` })) },
      { 'idempotency-key': 'points-drop' },
    );
    expect(summary(response)).toMatchObject({ status: 202 });
    const { batch_id: id } = response.body.data as Data;

    // The same request again is the same batch; another with the same key is refused.
    const again = await api.post(
      `/tokens/${address}/airdrop`,
      { recipients: to.map((recipient, i) => ({ recipient, amount: `${i + 1}.5` })) },
      { 'idempotency-key': 'points-drop' },
    );
    expect(summary(again)).toMatchObject({ status: 202, body: { data: { batch_id: id } } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await api.post(
      `/tokens/${address}/airdrop`,
      { recipients: [{ recipient: to[0], amount: 1 }] },
      { 'idempotency-key': 'points-drop' },
    );
    expectError(other, 409, 'Conflict', /different request/);

    const batch = await settledBatch(api, id);
    expect(batch.counts).toEqual({ queued: 0, submitted: 0, confirmed: 1_000, failed: 0 });
    const items = await batchItems(api, id);
    const token = new Contract(address, assetTokenArtifact.abi, provider);
    for (const item of items) {
      expect(item).toMatchObject({ amount: `${item.index + 1}.5`, status: 'confirmed' });
      const balance = (await token.getFunction('balanceOf').staticCall(to[item.index])) as bigint;
      expect(balance).toBe(BigInt((item.index + 1) * 100 + 50));
    }
    expect((await minedTransactions(items)).size).toBeLessThanOrEqual(10);
  });
});

describe('a bad entry', () => {
  it('is a 400 naming every bad index, and nothing is stored', async () => {
    const address = await created('/tokens', {
      network: 'base',
      name: 'Bad',
      symbol: 'BAD',
      amount: 1,
    });
    const before = await batchRows();
    const entries: Data[] = recipients(30).map((recipient) => ({ recipient, amount: 1 }));
    entries[3].recipient = 'not-an-address';
    entries[7].amount = -2;
    entries[12].recipient = address; // the token's own contract: what it is sent is lost
    const response = await api.post(`/tokens/${address}/airdrop`, { recipients: entries });
    expectError(response, 400, 'Bad request', /recipients\[3\]\.recipient/);
    expect(response.body.message).toMatch(/recipients\[7\]\.amount/);
    expect(await batchRows()).toBe(before);

    const domain = await api.post(`/tokens/${address}/airdrop`, {
      recipients: [entries[0], entries[12], entries[1]],
    });
    expectError(
      domain,
      400,
      'Bad request',
      /recipients\[1\]\.recipient .* the token's own contract/,
    );
    expect(await batchRows()).toBe(before);

    const empty = await api.post(`/tokens/${address}/airdrop`, { recipients: [] });
    expectError(empty, 400, 'Bad request', /recipients/);
  });

  it('names at most 20 bad entries and counts the rest', async () => {
    const address = await created('/tokens', {
      network: 'base',
      name: 'Bad',
      symbol: 'BAD',
      amount: 1,
    });
    const entries = Array.from({ length: 50 }, () => ({ recipient: 'nope', amount: 1 }));
    const response = await api.post(`/tokens/${address}/airdrop`, { recipients: entries });
    expectError(response, 400, 'Bad request', /recipients\[19\]\.recipient/);
    expect(response.body.message).not.toMatch(/recipients\[20\]/);
    expect(response.body.message).toMatch(/and 30 more/);
  });
});
