import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { setLamports } from '@test/support/chain-control';
import { batchItems, settledBatch } from '@test/support/airdrops';
import { expectError } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

const ITEM = { images: ['https://example.com/item.png'] };
const FUNDED = 100_000_000_000;

/**
 * An empty Solana wallet: a write its managed wallet cannot pay the fee or the rent of is 409
 * `Insufficient funds` naming the wallet, its balance and roughly what the transaction asks,
 * with nothing sent; once the wallet is funded again the same write lands.
 */
describe('an empty Solana wallet', () => {
  let stack: ServiceStack;
  let connection: Connection;
  let api: HttpClient;
  let wallet: string;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack();
    connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
    const client = await newAccountClient(stack.http);
    api = client.api;
    wallet = client.account.wallets.find((w) => w.network === 'solana')!.public_key;
    const created = await api.post('/nfts', {
      network: 'solana',
      name: 'Dry',
      description: 'A Solana wallet that runs dry',
      ...ITEM,
    });
    expect(created.status).toBe(200);
    collection = created.body.data.mint_address;
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const setWalletLamports = (lamports: number) =>
    setLamports(stack.chains.solanaRpcUrl, wallet, lamports);

  it.each([
    ['no lamports at all', 0],
    ['too few for the rent of the item', 10_000],
  ])(
    'answers 409 Insufficient funds with %s, and lands the write once funded',
    async (_, lamports) => {
      await setWalletLamports(lamports);
      const refused = await api.post(`/nfts/${collection}/mint`, { name: 'dry', ...ITEM });
      expectError(refused, 409, 'Insufficient funds', new RegExp(wallet));
      const held = (lamports / 1e9).toFixed(9).replace(/\.?0+$/, '');
      expect(refused.body.message).toContain(`holds ${held === '0' ? '0.0' : held} SOL`);
      expect(refused.body.message).toMatch(/needs about 0\.00\d+ SOL/);
      expect(await connection.getBalance(new PublicKey(wallet))).toBe(lamports);

      await setWalletLamports(FUNDED);
      const landed = await api.post(`/nfts/${collection}/mint`, { name: 'wet', ...ITEM });
      expect(landed.status).toBe(200);
      expect(landed.body.data.status).toBe('confirmed');
    },
  );

  it('fails every entry of a token airdrop it cannot pay the rent of, with nothing landed', async () => {
    // A carrier is sized without simulation (its compute is known from its recipients): the
    // node's preflight is what refuses it, and the refusal must still name the wallet.
    await setWalletLamports(FUNDED);
    const token = await api.post('/tokens', {
      network: 'solana',
      name: 'Dry drop',
      symbol: 'DRY',
      amount: 1,
      decimals: 6,
    });
    expect(token.status).toBe(200);
    await setWalletLamports(10_000);
    const recipients = Array.from({ length: 12 }, () => ({
      recipient: Keypair.generate().publicKey.toBase58(),
      amount: '1',
    }));
    const accepted = await api.post(`/tokens/${token.body.data.mint_address}/airdrop`, {
      network: 'solana',
      recipients,
    });
    expect(accepted.status).toBe(202);

    const batch = await settledBatch(api, accepted.body.data.batch_id);
    expect(batch).toMatchObject({
      status: 'completed_with_failures',
      counts: { queued: 0, submitted: 0, confirmed: 0, failed: 12 },
    });
    // A carrier of 10 asks the rent of 10 new token accounts (0.00207 SOL each): about 0.0207
    // SOL; the last carrier, of 2, about 0.0042.
    const items = await batchItems(api, accepted.body.data.batch_id);
    for (const item of items) {
      expect(item.error).toEqual({
        error: 'Insufficient funds',
        message: expect.stringMatching(
          new RegExp(`${wallet}.*needs about 0\\.0(207|041|042)\\d* SOL`),
        ),
      });
    }
    expect(await connection.getBalance(new PublicKey(wallet))).toBe(10_000);
  });
});
