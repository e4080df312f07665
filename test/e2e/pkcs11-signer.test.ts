import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  getAccount,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import { queryDatabase } from '@test/support/chain-reads';
import { privateKeySightings } from '@test/support/private-key-scan';
import { serviceProcessesStarted } from '@test/support/service-process';
import type { HttpClient, HttpResponse } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { TEST_PASSWORD, registerSession } from '@test/support/accounts';
import { batchItems, settledBatch } from '@test/support/airdrops';
import {
  freshSoftHsmToken,
  pkcs11SignerEnv,
  tokenObjectCount,
  type SoftHsmToken,
} from '@test/support/softhsm';

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
let hsm: SoftHsmToken;

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
  hsm = freshSoftHsmToken();
  stack = await startServiceStack({ env: pkcs11SignerEnv(hsm) });
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

/** The account that sent a landed transaction: the EVM sender, or the Solana fee payer. */
async function senderOf(network: 'base' | 'solana', tx: string): Promise<string> {
  if (network === 'base') {
    const provider = new JsonRpcProvider(stack.chains.evmRpcUrl);
    try {
      return (await provider.getTransaction(tx))!.from;
    } finally {
      provider.destroy();
    }
  }
  const connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
  const landed = await connection.getTransaction(tx, {
    commitment: 'confirmed',
    maxSupportedTransactionVersion: 0,
  });
  return landed!.transaction.message.staticAccountKeys[0].toBase58();
}

/** An airdrop, followed until every entry settled, all confirmed; its distinct transactions. */
async function airdropped(path: string, body: Record<string, unknown>): Promise<string[]> {
  const accepted = await api.post(path, body);
  expect(accepted.status).toBe(202);
  const id = accepted.body.data.batch_id as string;
  expect((await settledBatch(api, id, 60_000)).status).toBe('completed');
  return [...new Set((await batchItems(api, id)).map((item) => item.tx as string))];
}

it.each(['base', 'solana'] as const)(
  'signs every other write kind in the token on %s: transfers, burns and airdrops',
  async (network) => {
    const wallet = network === 'base' ? wallets.evm : wallets.solana;
    const stranger = () =>
      network === 'base' ? Wallet.createRandom().address : Keypair.generate().publicKey.toBase58();
    const txs: string[] = [];
    const token = confirmed(
      await api.post('/tokens', { network, name: 'HSM all', symbol: 'HSMA', amount: 100 }),
    );
    const asset = token.mint_address as string;
    txs.push(
      confirmed(
        await api.post(`/tokens/${asset}/transfer`, { network, recipient: stranger(), amount: 3 }),
      ).tx,
      confirmed(await api.post(`/tokens/${asset}/burn`, { network, amount: 2 })).tx,
    );
    const { collection, item } = await collectionWithItem(network);
    const itemId = network === 'base' ? item.token_id : item.mint_address;
    txs.push(
      confirmed(
        await api.post(`/nfts/${collection.mint_address}/transfer`, {
          network,
          recipient: stranger(),
          token_id: String(itemId),
        }),
      ).tx,
    );
    const second = confirmed(
      await api.post(`/nfts/${collection.mint_address}/mint`, {
        network,
        name: 'Burnt',
        images: [IMAGE],
      }),
    );
    txs.push(
      network === 'base'
        ? confirmed(
            await api.post(`/nfts/${collection.mint_address}/burn`, {
              network,
              tokenId: Number(second.token_id),
            }),
          ).tx
        : confirmed(await api.post(`/nfts/${second.mint_address}/burn`, { network })).tx,
    );
    const recipients = [stranger(), stranger(), stranger()];
    txs.push(
      ...(await airdropped(`/tokens/${asset}/airdrop`, {
        network,
        recipients: recipients.map((recipient) => ({ recipient, amount: 1 })),
      })),
      ...(await airdropped(`/nfts/${collection.mint_address}/airdrop`, {
        network,
        items: recipients.map((recipient, i) => ({
          recipient,
          name: `Drop ${i}`,
          images: [IMAGE],
        })),
      })),
    );
    for (const tx of txs) expect(await senderOf(network, tx)).toBe(wallet);
  },
);

it("leaves the wallets' private keys nowhere in the database or the service logs", async () => {
  const tables = await queryDatabase<{ name: string }>(
    stack.env.DATABASE_URL,
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`,
  );
  const texts: { source: string; text: string }[] = [];
  for (const { name } of tables) {
    const rows = await queryDatabase<{ row: string }>(
      stack.env.DATABASE_URL,
      `SELECT to_jsonb(t)::text AS row FROM "${name}" t`,
    );
    texts.push({ source: `table ${name}`, text: rows.map((row) => row.row).join('\n') });
  }
  expect(texts.find((text) => text.source === 'table transactions')?.text.length).toBeGreaterThan(
    0,
  );
  for (const service of serviceProcessesStarted()) {
    texts.push({ source: service.name, text: service.output() });
  }
  expect(privateKeySightings(wallets, texts)).toEqual([]);
});

it('discards the keys it made for a registration refused for a taken email', async () => {
  const { email } = await registerSession(stack.http.baseUrl, 'hsm-taken');
  const before = tokenObjectCount(hsm);
  const again = await stack.http.post('/account/register', { email, password: TEST_PASSWORD });
  expect(again.status).toBe(409);
  expect(tokenObjectCount(hsm)).toBe(before);
});
