import { Contract, Wallet, parseUnits, type JsonRpcProvider } from 'ethers';
import { assetTokenArtifact } from '@app/chains';
import { collectionAt, evmReader } from '@test/support/chain-reads';
import {
  expectConfirmedEnvelope,
  settledOperation,
  type Data,
} from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

const TX_HASH = /^0x[0-9a-f]{64}$/;
const COPIES = 8;

/**
 * Identical writes (same path, same body, no Idempotency-Key) are distinct operations, and each
 * is its own transaction on chain: N token mints mint N times, N burns burn N times. Identical
 * NFT transfers and burns of one item: the first wins, the others fail, none is reported
 * confirmed with another's transaction. Checked on chain, in sequence and in parallel.
 */
describe('identical EVM writes', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;
  let wallet: string;
  let token: Contract;
  let tokenAddress: string;
  let collection: string;

  beforeAll(async () => {
    // Three workers, as scaled out: the wallet's shard is one worker's, the others stand by.
    stack = await startServiceStack({ workers: 3, env: { RATE_LIMIT_REQUESTS: '100000' } });
    provider = evmReader(stack.chains.evmRpcUrl);
    const client = await newAccountClient(stack.http);
    api = client.api;
    wallet = client.account.wallets.find((w) => w.network === 'evm')!.public_key;
    const created = await api.post('/tokens', {
      network: 'base',
      name: 'Twins',
      symbol: 'TWN',
      amount: 1000,
    });
    tokenAddress = expectConfirmedEnvelope(created, 'base', TX_HASH).mint_address;
    token = new Contract(tokenAddress, assetTokenArtifact.abi, provider);
    const nfts = await api.post('/nfts', {
      network: 'base',
      name: 'Twins',
      symbol: 'TWN',
      description: 'identical writes',
      images: ['https://example.com/t.png'],
    });
    collection = expectConfirmedEnvelope(nfts, 'base', TX_HASH).mint_address;
  });

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  const read = (method: string, ...args: unknown[]): Promise<bigint> =>
    token.getFunction(method).staticCall(...args);

  /**
   * The same request `COPIES` times, one after the other or all at once: the settled views of
   * the operations accepted, and the statuses of requests refused at once (an item the wallet
   * no longer holds, one already burned).
   */
  async function send(
    path: string,
    body: object,
    parallel: boolean,
  ): Promise<{ settled: Data[]; refused: number[] }> {
    const post = () => api.post(path, body, { prefer: 'respond-async' });
    const responses = [];
    if (parallel) responses.push(...(await Promise.all(Array.from({ length: COPIES }, post))));
    else for (let i = 0; i < COPIES; i++) responses.push(await post());
    const ids = responses
      .filter((response) => response.status === 202)
      .map((response) => response.body.data.operation_id as string);
    expect(new Set(ids).size).toBe(ids.length);
    const settled = await Promise.all(ids.map((id) => settledOperation(api, id, 60_000)));
    const refused = responses.filter((r) => r.status !== 202).map((r) => r.status);
    return { settled, refused };
  }

  /** Every request accepted and confirmed, each with a transaction of its own. */
  async function sendAllConfirmed(path: string, body: object, parallel: boolean): Promise<void> {
    const { settled, refused } = await send(path, body, parallel);
    expect(refused).toEqual([]);
    expect(settled.map((op) => op.status)).toEqual(Array(COPIES).fill('confirmed'));
    await expectOwnTransactions(settled);
  }

  /** One request wins; every other one is refused at once or fails (403 / 409). */
  async function sendOneWins(path: string, body: object, parallel: boolean): Promise<void> {
    const { settled, refused } = await send(path, body, parallel);
    const confirmed = settled.filter((op) => op.status === 'confirmed');
    const failed = settled.filter((op) => op.status === 'failed');
    expect(confirmed).toHaveLength(1);
    expect(failed.length + refused.length).toBe(COPIES - 1);
    for (const status of refused) expect([403, 409]).toContain(status);
    for (const op of failed) expect(['Forbidden', 'Conflict']).toContain(op.error.error);
    await expectOwnTransactions(settled);
  }

  /** Every confirmed operation has a transaction of its own, mined with status 1. */
  async function expectOwnTransactions(settled: Data[]): Promise<void> {
    const confirmed = settled.filter((op) => op.status === 'confirmed');
    expect(new Set(confirmed.map((op) => op.tx)).size).toBe(confirmed.length);
    for (const op of confirmed) {
      expect((await provider.getTransactionReceipt(op.tx))?.status).toBe(1);
    }
  }

  it.each([
    ['in sequence', false],
    ['in parallel', true],
  ])('mints, burns and transfers a token once per request %s', async (_, parallel) => {
    const one = parseUnits('1', 18);
    const recipient = Wallet.createRandom().address;
    const supply = await read('totalSupply');

    await sendAllConfirmed(`/tokens/${tokenAddress}/mint`, { amount: 1, recipient }, parallel);
    expect(await read('balanceOf', recipient)).toBe(one * BigInt(COPIES));

    await sendAllConfirmed(`/tokens/${tokenAddress}/burn`, { amount: 1 }, parallel);
    expect(await read('totalSupply')).toBe(supply);

    const other = Wallet.createRandom().address;
    await sendAllConfirmed(
      `/tokens/${tokenAddress}/transfer`,
      { amount: 1, recipient: other },
      parallel,
    );
    expect(await read('balanceOf', other)).toBe(one * BigInt(COPIES));
  });

  it.each([
    ['in sequence', false],
    ['in parallel', true],
  ])('transfers and burns an item once however often it is asked %s', async (_, parallel) => {
    const nft = collectionAt(provider, collection);
    const mint = await api.post(`/nfts/${collection}/mint`, {
      name: 'Only one',
      images: ['https://example.com/1.png'],
    });
    const tokenId = expectConfirmedEnvelope(mint, 'base', TX_HASH).token_id as string;

    const recipient = Wallet.createRandom().address;
    await sendOneWins(`/nfts/${collection}/transfer`, { recipient, token_id: tokenId }, parallel);
    expect(await nft.getFunction('ownerOf')(tokenId)).toBe(recipient);

    const second = await api.post(`/nfts/${collection}/mint`, {
      name: 'Burn me',
      images: ['https://example.com/2.png'],
    });
    const burnId = expectConfirmedEnvelope(second, 'base', TX_HASH).token_id as string;
    const minted: bigint = await nft.getFunction('totalMinted')();
    await sendOneWins(`/nfts/${collection}/burn`, { tokenId: burnId }, parallel);
    await expect(nft.getFunction('ownerOf')(burnId)).rejects.toThrow();
    expect(await nft.getFunction('totalMinted')()).toBe(minted);
    expect(await nft.getFunction('balanceOf')(wallet)).toBe(0n);
  });
});
