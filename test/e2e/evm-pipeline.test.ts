import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(300_000);

/**
 * Issue 4's concurrency guarantees, with two worker processes on the same queues: every one of
 * 200 concurrent mints of one wallet lands once, on distinct consecutive nonces, and one
 * Idempotency-Key sent 20 times at once makes one transaction.
 */
describe('EVM pipeline under concurrency (two workers)', () => {
  let stack: ServiceStack;
  let api: HttpClient;
  let wallet: string;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({ workers: 2 });
    const client = await newAccountClient(stack.http);
    api = client.api;
    wallet = client.account.wallets.find((w) => w.network === 'evm')!.public_key;
    const created = await api.post('/nfts', {
      network: 'base',
      name: 'Concurrency',
      description: 'pipelined mints',
      images: ['https://example.com/c.png'],
    });
    expect(created.status).toBe(200);
    collection = created.body.data.mint_address;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('confirms 200 concurrent mints once each, on consecutive nonces with no gap', async () => {
    const provider = evmReader(stack.chains.evmRpcUrl);
    const nonceBefore = await provider.getTransactionCount(wallet, 'latest');
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        api.post(`/nfts/${collection}/mint`, {
          name: `Item ${i}`,
          images: [`https://example.com/${i}.png`],
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
    expect(new Set(responses.map((r) => r.body.data.status))).toEqual(new Set(['confirmed']));
    const tokenIds = responses.map((r) => Number(r.body.data.token_id)).sort((a, b) => a - b);
    expect(tokenIds).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));

    const rows = await queryDatabase<{ nonce: string; tx_hash: string }>(
      stack.services.databaseUrl,
      `SELECT nonce, tx_hash FROM operations WHERE kind = 'nft.mint' AND signer = $1 ORDER BY nonce`,
      [wallet],
    );
    const nonces = rows.map((row) => Number(row.nonce));
    expect(nonces).toEqual(Array.from({ length: 200 }, (_, i) => nonceBefore + i));
    expect(new Set(rows.map((row) => row.tx_hash)).size).toBe(200);

    // On chain: exactly 200 more transactions from the wallet, and exactly 200 tokens.
    expect(await provider.getTransactionCount(wallet, 'latest')).toBe(nonceBefore + 200);
    expect(await collectionAt(provider, collection).totalMinted()).toBe(200n);
    const receipts = await Promise.all(
      rows.map((row) => provider.getTransactionReceipt(row.tx_hash)),
    );
    expect(receipts.every((receipt) => receipt?.status === 1)).toBe(true);
    provider.destroy();
  });

  it('sends one transaction for one Idempotency-Key sent 20 times at once', async () => {
    const provider = evmReader(stack.chains.evmRpcUrl);
    const mintedBefore: bigint = await collectionAt(provider, collection).totalMinted();
    const body = { name: 'Once', images: ['https://example.com/once.png'] };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post(`/nfts/${collection}/mint`, body, { 'idempotency-key': 'mint-once-20' }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(responses.map((r) => r.body.data.operation_id)).size).toBe(1);
    expect(new Set(responses.map((r) => r.body.data.tx)).size).toBe(1);
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(
      19,
    );
    expect(await collectionAt(provider, collection).totalMinted()).toBe(mintedBefore + 1n);

    const different = await api.post(
      `/nfts/${collection}/mint`,
      { ...body, name: 'Other' },
      { 'idempotency-key': 'mint-once-20' },
    );
    expect(different.status).toBe(409);
    expect(different.body).toMatchObject({ success: false, error: 'Conflict' });
    expect(await collectionAt(provider, collection).totalMinted()).toBe(mintedBefore + 1n);
    provider.destroy();
  });
});
