import { Connection, PublicKey } from '@solana/web3.js';
import { setLamports } from '@test/support/chain-control';
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
});
