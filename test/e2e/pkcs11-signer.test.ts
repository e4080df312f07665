import { Connection, PublicKey } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  getAccount,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { Contract, JsonRpcProvider } from 'ethers';
import { queryDatabase } from '@test/support/chain-reads';
import type { HttpClient, HttpResponse } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { freshSoftHsmToken } from '@test/support/softhsm';

jest.setTimeout(120_000);

/**
 * SIGNER_BACKEND=pkcs11 end to end: an account's managed wallets are made in a SoftHSM2 token
 * (the API process), its writes signed there (the worker process), on both chain families, and
 * the database holds no key material of them, only the token's ids of the keys.
 */

const IMAGE = 'https://example.com/image.png';
const ERC20 = ['function balanceOf(address) view returns (uint256)'];
const ERC721 = ['function ownerOf(uint256) view returns (address)'];

let stack: ServiceStack;
let api: HttpClient;
let wallets: { evm: string; solana: string };

function confirmed(response: HttpResponse): Record<string, any> {
  if (response.status !== 200 || response.body.data?.status !== 'confirmed') {
    throw new Error(`not confirmed: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body.data;
}

/** A collection made and an item minted on `network`, both confirmed. */
async function collectionWithItem(network: string) {
  const collection = confirmed(
    await api.post('/nfts', {
      network,
      name: 'HSM items',
      symbol: 'HSMI',
      description: 'Signed in a token',
      images: [IMAGE],
    }),
  );
  const item = confirmed(
    await api.post(`/nfts/${collection.mint_address}/mint`, {
      network,
      name: 'Item',
      images: [IMAGE],
    }),
  );
  return { collection, item };
}

beforeAll(async () => {
  const token = freshSoftHsmToken();
  stack = await startServiceStack({
    env: {
      SIGNER_BACKEND: 'pkcs11',
      PKCS11_MODULE: token.module,
      PKCS11_TOKEN_LABEL: token.tokenLabel,
      PKCS11_PIN: token.pin,
      SOFTHSM2_CONF: process.env.SOFTHSM2_CONF!,
    },
  });
  const user = await newAccountClient(stack.http);
  api = user.api;
  const address = (prefix: (key: string) => boolean) =>
    user.account.wallets.find((wallet) => prefix(wallet.public_key))!.public_key;
  wallets = {
    evm: address((key) => key.startsWith('0x')),
    solana: address((key) => !key.startsWith('0x')),
  };
});

afterAll(async () => {
  await stack?.stop();
});

it('keeps no key material of the managed wallets in the database, only token key ids', async () => {
  const rows = await queryDatabase<{
    address: string;
    secret_ciphertext: Buffer | null;
    secret_key_id: string | null;
    token_key_id: string | null;
  }>(
    stack.env.DATABASE_URL,
    `SELECT address, secret_ciphertext, secret_key_id, token_key_id FROM managed_wallets
      WHERE address = ANY($1)`,
    [[wallets.evm, wallets.solana]],
  );
  expect(rows).toHaveLength(2);
  for (const row of rows) {
    expect(row.secret_ciphertext).toBeNull();
    expect(row.secret_key_id).toBeNull();
    expect(row.token_key_id).toMatch(/^[0-9a-f]{32}$/);
  }
});

it('signs EVM writes in the token: an ERC-20 made and minted, an NFT minted', async () => {
  const provider = new JsonRpcProvider(stack.chains.evmRpcUrl);
  const token = confirmed(
    await api.post('/tokens', { network: 'base', name: 'HSM token', symbol: 'HSM', amount: 10 }),
  );
  expect(token.owner).toBe(wallets.evm);
  confirmed(await api.post(`/tokens/${token.mint_address}/mint`, { network: 'base', amount: 5 }));
  const erc20 = new Contract(token.mint_address, ERC20, provider);
  expect(await erc20.balanceOf(wallets.evm)).toBe(15n * 10n ** 18n);

  const { collection, item } = await collectionWithItem('base');
  const erc721 = new Contract(collection.mint_address, ERC721, provider);
  expect(await erc721.ownerOf(BigInt(item.token_id))).toBe(wallets.evm);
  const sender = (await provider.getTransaction(item.tx))!.from;
  expect(sender).toBe(wallets.evm);
});

it('signs Solana writes in the token: a token made and minted, an NFT minted', async () => {
  const connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
  const token = confirmed(
    await api.post('/tokens', {
      network: 'solana',
      name: 'HSM',
      symbol: 'HSM',
      amount: 10,
      decimals: 2,
    }),
  );
  confirmed(await api.post(`/tokens/${token.mint_address}/mint`, { network: 'solana', amount: 5 }));
  const mint = new PublicKey(token.mint_address);
  const owner = new PublicKey(wallets.solana);
  const account = await getAccount(
    connection,
    getAssociatedTokenAddressSync(mint, owner, false, TOKEN_2022_PROGRAM_ID),
    'confirmed',
    TOKEN_2022_PROGRAM_ID,
  );
  expect(account.amount).toBe(1_500n);

  const { item } = await collectionWithItem('solana');
  const landed = await connection.getTransaction(item.tx, {
    commitment: 'confirmed',
    maxSupportedTransactionVersion: 0,
  });
  expect(landed?.transaction.message.staticAccountKeys[0].toBase58()).toBe(wallets.solana);
});
