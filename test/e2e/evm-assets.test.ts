import { Keypair } from '@solana/web3.js';
import { Contract, JsonRpcProvider, Wallet, parseUnits } from 'ethers';
import { assetCollectionArtifact, assetTokenArtifact } from '@app/chains';
import {
  ISO_MS,
  UUID,
  expectConfirmedEnvelope,
  expectError,
  settledOperation,
  summary,
  type Data,
} from '@test/support/envelope-assertions';
import type { HttpClient, HttpResponse } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

/**
 * The EVM token and NFT endpoints end to end: the API and the worker as their own processes on
 * the local profile (every EVM network on one anvil, chain id 31337), driven over HTTP alone,
 * with the chain state checked by the test's own RPC reads.
 */

interface User {
  api: HttpClient;
  /** The account's managed EVM wallet. */
  wallet: string;
}

const TX_HASH = /^0x[0-9a-f]{64}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_ADDRESS = Keypair.generate().publicKey.toBase58();
const IMAGE = 'https://example.com/image.png';
/** A collection's or token's EVM address, named with the Solana network. */
const NOT_SOLANA = /mint_address 0x[0-9a-fA-F]{40} is not a Solana address \(network solana\)/;

let stack: ServiceStack;
let provider: JsonRpcProvider;

beforeAll(async () => {
  stack = await startServiceStack({ env: { RATE_LIMIT_REQUESTS: '100000' } });
  provider = new JsonRpcProvider(stack.chains.evmRpcUrl, undefined, { cacheTimeout: -1 });
});

afterAll(async () => {
  provider?.destroy();
  await stack?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

async function newUser(): Promise<User> {
  const { api, account } = await newAccountClient(stack.http);
  return { api, wallet: account.wallets.find((w) => w.network === 'evm')!.public_key };
}

function randomAddress(): string {
  return Wallet.createRandom().address;
}

function tokenAt(address: string): Contract {
  return new Contract(address, assetTokenArtifact.abi, provider);
}

function collectionAt(address: string): Contract {
  return new Contract(address, assetCollectionArtifact.abi, provider);
}

/** A view call of our own against the chain. */
function read(contract: Contract, method: string, ...args: unknown[]): Promise<any> {
  return contract.getFunction(method).staticCall(...args);
}

function nonceOf(address: string): Promise<number> {
  return provider.getTransactionCount(address, 'latest');
}

/**
 * A write answered 200 and confirmed on chain: the common fields of the contract, and a receipt
 * with status 1 read by the test itself. Returns `data`.
 */
async function expectConfirmed(response: HttpResponse, network: string): Promise<Data> {
  const data = expectConfirmedEnvelope(response, network, TX_HASH);
  const receipt = await provider.getTransactionReceipt(data.tx);
  expect(receipt?.status).toBe(1);
  return data;
}

async function createToken(user: User, body: Data): Promise<Data> {
  return expectConfirmed(await user.api.post('/tokens', body), body.network);
}

async function createCollection(user: User, body: Data): Promise<Data> {
  return expectConfirmed(await user.api.post('/nfts', body), body.network);
}

async function mintItem(user: User, collection: string, network: string, body: Data = {}) {
  const response = await user.api.post(`/nfts/${collection}/mint`, {
    name: 'Item',
    images: [IMAGE],
    ...body,
  });
  return expectConfirmed(response, network);
}

/** GET of a hosted metadata document, without an api-key (the route is public). */
async function metadataDocument(uri: string): Promise<Data> {
  expect(uri.startsWith(`${stack.http.baseUrl}/metadata/`)).toBe(true);
  const response = await stack.http.get(new URL(uri).pathname);
  expect(summary(response)).toMatchObject({ status: 200 });
  return response.body as Data;
}

const tokenBody = (network: string, extra: Data = {}): Data => ({
  network,
  name: 'Example Token',
  symbol: 'EXT',
  amount: 1000,
  decimals: 6,
  ...extra,
});

const collectionBody = (network: string, extra: Data = {}): Data => ({
  network,
  name: 'Example Collection',
  symbol: 'EXC',
  description: 'A collection for the tests',
  images: [IMAGE],
  ...extra,
});

// ---------------------------------------------------------------------------------------------
// Happy paths, on two EVM networks
// ---------------------------------------------------------------------------------------------

describe.each(['base', 'polygon'])('EVM assets on %s', (network) => {
  describe('tokens', () => {
    let user: User;

    beforeAll(async () => {
      user = await newUser();
    });

    it('creates an ERC-20 held by the managed wallet (POST /tokens)', async () => {
      const response = await user.api.post('/tokens', {
        network,
        name: `Token on ${network}`,
        symbol: 'TKN',
        amount: 1000,
        decimals: 6,
        description: 'A test token',
        image: IMAGE,
        website: 'https://example.com',
      });
      const data = await expectConfirmed(response, network);
      expect(data).toMatchObject({
        mint_address: expect.stringMatching(EVM_ADDRESS),
        metadata_uri: expect.stringContaining('/metadata/'),
        decimals: 6,
        amount: '1000',
        owner: user.wallet,
      });
      const receipt = await provider.getTransactionReceipt(data.tx);
      expect(receipt?.contractAddress).toBe(data.mint_address);

      const token = tokenAt(data.mint_address);
      expect(await read(token, 'name')).toBe(`Token on ${network}`);
      expect(await read(token, 'symbol')).toBe('TKN');
      expect(await read(token, 'decimals')).toBe(6n);
      expect(await read(token, 'totalSupply')).toBe(1_000_000_000n);
      expect(await read(token, 'balanceOf', user.wallet)).toBe(1_000_000_000n);
      expect(await read(token, 'owner')).toBe(user.wallet);
    });

    it('defaults decimals to 18 and takes a decimal string with a fraction', async () => {
      const data = await createToken(user, {
        network,
        name: 'Eighteen',
        symbol: 'E18',
        amount: '1234.5678',
      });
      expect(data).toMatchObject({ decimals: 18, amount: '1234.5678' });
      const token = tokenAt(data.mint_address);
      expect(await read(token, 'decimals')).toBe(18n);
      expect(await read(token, 'totalSupply')).toBe(parseUnits('1234.5678', 18));
      expect(await read(token, 'balanceOf', user.wallet)).toBe(parseUnits('1234.5678', 18));
    });

    it('takes an amount beyond 2^53 as a decimal string', async () => {
      const amount = '123456789012345678901234.5';
      const data = await createToken(user, tokenBody(network, { amount, decimals: 6 }));
      expect(data.amount).toBe(amount);
      expect(await read(tokenAt(data.mint_address), 'totalSupply')).toBe(parseUnits(amount, 6));
    });

    describe('on an existing token', () => {
      let mint: string;
      let metadataUri: string;

      beforeAll(async () => {
        const data = await createToken(
          user,
          tokenBody(network, { name: 'Operated', symbol: 'OPR', description: 'operated' }),
        );
        mint = data.mint_address;
        metadataUri = data.metadata_uri;
      });

      it('mints to the managed wallet by default (POST /tokens/{mint}/mint)', async () => {
        const token = tokenAt(mint);
        const supply: bigint = await read(token, 'totalSupply');
        const balance: bigint = await read(token, 'balanceOf', user.wallet);

        const data = await expectConfirmed(
          await user.api.post(`/tokens/${mint}/mint`, { amount: '250.5' }),
          network,
        );
        expect(data).toMatchObject({ mint_address: mint, amount: '250.5', recipient: user.wallet });
        expect(await read(token, 'totalSupply')).toBe(supply + 250_500_000n);
        expect(await read(token, 'balanceOf', user.wallet)).toBe(balance + 250_500_000n);
      });

      it('mints to a recipient (lower-case address accepted)', async () => {
        const token = tokenAt(mint);
        const supply: bigint = await read(token, 'totalSupply');
        const balance: bigint = await read(token, 'balanceOf', user.wallet);
        const recipient = randomAddress();

        const data = await expectConfirmed(
          await user.api.post(`/tokens/${mint}/mint`, {
            amount: 42,
            recipient: recipient.toLowerCase(),
          }),
          network,
        );
        expect(data).toMatchObject({ mint_address: mint, amount: '42', recipient });
        expect(await read(token, 'balanceOf', recipient)).toBe(42_000_000n);
        expect(await read(token, 'totalSupply')).toBe(supply + 42_000_000n);
        expect(await read(token, 'balanceOf', user.wallet)).toBe(balance);
      });

      it('burns from the managed wallet (POST /tokens/{mint}/burn)', async () => {
        const token = tokenAt(mint);
        const supply: bigint = await read(token, 'totalSupply');
        const balance: bigint = await read(token, 'balanceOf', user.wallet);

        const data = await expectConfirmed(
          await user.api.post(`/tokens/${mint}/burn`, { amount: '100.25' }),
          network,
        );
        expect(data).toMatchObject({ mint_address: mint, amount: '100.25' });
        expect(await read(token, 'totalSupply')).toBe(supply - 100_250_000n);
        expect(await read(token, 'balanceOf', user.wallet)).toBe(balance - 100_250_000n);
      });

      it('transfers from the managed wallet (POST /tokens/{mint}/transfer)', async () => {
        const token = tokenAt(mint);
        const supply: bigint = await read(token, 'totalSupply');
        const balance: bigint = await read(token, 'balanceOf', user.wallet);
        const recipient = randomAddress();

        const data = await expectConfirmed(
          await user.api.post(`/tokens/${mint}/transfer`, { recipient, amount: '12.000001' }),
          network,
        );
        expect(data).toMatchObject({ mint_address: mint, amount: '12.000001', recipient });
        expect(await read(token, 'balanceOf', recipient)).toBe(12_000_001n);
        expect(await read(token, 'balanceOf', user.wallet)).toBe(balance - 12_000_001n);
        expect(await read(token, 'totalSupply')).toBe(supply);
      });

      it('reads the token with its live supply (GET /tokens/{mint})', async () => {
        const response = await user.api.get(`/tokens/${mint}`);
        expect(summary(response)).toMatchObject({ status: 200 });
        const data = response.body.data as Data;
        expect(data).toEqual({
          network,
          mint_address: mint,
          name: 'Operated',
          symbol: 'OPR',
          decimals: 6,
          supply: expect.any(String),
          owner: user.wallet,
          metadata_uri: metadataUri,
          created_at: expect.stringMatching(ISO_MS),
          // When the chain said it, and whether from the cache of chain reads.
          as_of: expect.stringMatching(ISO_MS),
          cached: expect.any(Boolean),
        });
        expect(parseUnits(data.supply, 6)).toBe(await read(tokenAt(mint), 'totalSupply'));

        const lower = await user.api.get(`/tokens/${mint.toLowerCase()}?network=${network}`);
        expect(summary(lower)).toMatchObject({
          status: 200,
          body: { data: { mint_address: mint } },
        });
      });

      it('serves the metadata document publicly (GET /metadata/{id})', async () => {
        const document = await metadataDocument(metadataUri);
        expect(document).toMatchObject({
          name: 'Operated',
          symbol: 'OPR',
          description: 'operated',
          decimals: 6,
        });
      });
    });
  });

  describe('NFT collections and items', () => {
    let user: User;

    beforeAll(async () => {
      user = await newUser();
    });

    it('creates an ERC-721 collection with royalties and a cap (POST /nfts)', async () => {
      const body = collectionBody(network, {
        name: `Collection on ${network}`,
        symbol: 'COL',
        description: 'Three items at most',
        images: [IMAGE, 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi'],
        website: 'https://example.com/collection',
        attributes: [{ trait_type: 'tier', value: 'gold' }],
        seller_fee: 500,
        max_supply: 3,
      });
      const data = await createCollection(user, body);
      expect(data).toMatchObject({
        mint_address: expect.stringMatching(EVM_ADDRESS),
        metadata_uri: expect.stringContaining('/metadata/'),
      });
      const receipt = await provider.getTransactionReceipt(data.tx);
      expect(receipt?.contractAddress).toBe(data.mint_address);

      const collection = collectionAt(data.mint_address);
      expect(await read(collection, 'name')).toBe(`Collection on ${network}`);
      expect(await read(collection, 'symbol')).toBe('COL');
      expect(await read(collection, 'contractURI')).toBe(data.metadata_uri);
      expect(await read(collection, 'maxSupply')).toBe(3n);
      expect(await read(collection, 'totalMinted')).toBe(0n);
      expect(await read(collection, 'owner')).toBe(user.wallet);
      expect([...(await read(collection, 'royaltyInfo', 1n, 10_000n))]).toEqual([
        user.wallet,
        500n,
      ]);

      const document = await metadataDocument(data.metadata_uri);
      expect(document).toMatchObject({
        name: body.name,
        symbol: 'COL',
        description: 'Three items at most',
        image: IMAGE,
        images: body.images,
        attributes: body.attributes,
        seller_fee_basis_points: 500,
      });
    });

    it('takes the `maxSupply` spelling and seller_fee as a numeric string', async () => {
      const data = await createCollection(
        user,
        collectionBody(network, { maxSupply: 7, seller_fee: '250' }),
      );
      const collection = collectionAt(data.mint_address);
      expect(await read(collection, 'maxSupply')).toBe(7n);
      expect([...(await read(collection, 'royaltyInfo', 1n, 10_000n))]).toEqual([
        user.wallet,
        250n,
      ]);
    });

    describe('items of a collection', () => {
      let collection: string;

      beforeAll(async () => {
        const data = await createCollection(
          user,
          collectionBody(network, { name: 'Items', seller_fee: 100, max_supply: 50 }),
        );
        collection = data.mint_address;
      });

      it('mints an item to the managed wallet (POST /nfts/{collection}/mint)', async () => {
        const attributes = [{ trait_type: 'color', value: 'red' }];
        const images = ['https://example.com/item-1.png', 'https://example.com/item-1b.png'];
        const data = await mintItem(user, collection, network, {
          name: 'Red item',
          description: 'a red one',
          images,
          attributes,
        });
        expect(data).toMatchObject({
          collection,
          mint_address: collection,
          token_id: expect.stringMatching(/^[1-9]\d*$/),
          metadata_uri: expect.stringContaining('/metadata/'),
          owner: user.wallet,
        });
        const contract = collectionAt(collection);
        expect(await read(contract, 'ownerOf', BigInt(data.token_id))).toBe(user.wallet);
        expect(await read(contract, 'tokenURI', BigInt(data.token_id))).toBe(data.metadata_uri);

        const document = await metadataDocument(data.metadata_uri);
        expect(document).toMatchObject({
          name: 'Red item',
          description: 'a red one',
          image: images[0],
          images,
          attributes,
        });
      });

      it('mints an item to a recipient', async () => {
        const recipient = randomAddress();
        const data = await mintItem(user, collection, network, { name: 'Gift', recipient });
        expect(data).toMatchObject({ collection, owner: recipient });
        const contract = collectionAt(collection);
        expect(await read(contract, 'ownerOf', BigInt(data.token_id))).toBe(recipient);
        expect(await read(contract, 'tokenURI', BigInt(data.token_id))).toBe(data.metadata_uri);
      });

      it('transfers an item (POST /nfts/{collection}/transfer)', async () => {
        const item = await mintItem(user, collection, network, { name: 'To send' });
        const recipient = randomAddress();

        const data = await expectConfirmed(
          await user.api.post(`/nfts/${collection}/transfer`, {
            recipient,
            token_id: item.token_id,
          }),
          network,
        );
        expect(data).toMatchObject({
          mint_address: collection,
          token_id: item.token_id,
          from: user.wallet,
          recipient,
        });
        expect(await read(collectionAt(collection), 'ownerOf', BigInt(item.token_id))).toBe(
          recipient,
        );

        const view = await user.api.get(`/nfts/${collection}?token_id=${item.token_id}`);
        expect(summary(view)).toMatchObject({
          status: 200,
          body: { data: { type: 'item', owner: recipient, burned: false } },
        });
      });

      it('burns an item (POST /nfts/{collection}/burn)', async () => {
        const item = await mintItem(user, collection, network, { name: 'To burn' });
        const contract = collectionAt(collection);
        const held: bigint = await read(contract, 'balanceOf', user.wallet);

        const data = await expectConfirmed(
          await user.api.post(`/nfts/${collection}/burn`, { tokenId: Number(item.token_id) }),
          network,
        );
        expect(data).toMatchObject({
          mint_address: collection,
          token_id: item.token_id,
          from: user.wallet,
        });
        await expect(read(contract, 'ownerOf', BigInt(item.token_id))).rejects.toMatchObject({
          revert: { name: 'ERC721NonexistentToken' },
        });
        expect(await read(contract, 'balanceOf', user.wallet)).toBe(held - 1n);

        const view = await user.api.get(`/nfts/${collection}?token_id=${item.token_id}`);
        expect(summary(view)).toMatchObject({
          status: 200,
          body: { data: { type: 'item', owner: null, burned: true } },
        });
      });

      it('reads the collection and an item (GET /nfts/{collection})', async () => {
        const item = await mintItem(user, collection, network, {
          name: 'Readable',
          attributes: [{ trait_type: 'size', value: 3 }],
        });
        const contract = collectionAt(collection);

        const response = await user.api.get(`/nfts/${collection}`);
        expect(summary(response)).toMatchObject({ status: 200 });
        expect(response.body.data).toMatchObject({
          type: 'collection',
          network,
          mint_address: collection,
          name: 'Items',
          symbol: 'EXC',
          description: 'A collection for the tests',
          images: [IMAGE],
          seller_fee: 100,
          max_supply: '50',
          minted: String(await read(contract, 'totalMinted')),
          metadata_uri: expect.stringContaining('/metadata/'),
          owner: user.wallet,
          created_at: expect.stringMatching(ISO_MS),
        });
        expect(await read(contract, 'contractURI')).toBe(response.body.data.metadata_uri);

        const itemView = await user.api.get(`/nfts/${collection}?token_id=${item.token_id}`);
        expect(summary(itemView)).toMatchObject({ status: 200 });
        expect(itemView.body.data).toMatchObject({
          type: 'item',
          network,
          collection,
          token_id: item.token_id,
          owner: await read(contract, 'ownerOf', BigInt(item.token_id)),
          burned: false,
          metadata_uri: item.metadata_uri,
          name: 'Readable',
          images: [IMAGE],
          attributes: [{ trait_type: 'size', value: 3 }],
        });
        expect(itemView.body.data.owner).toBe(user.wallet);
      });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Async writes and operations
// ---------------------------------------------------------------------------------------------

describe('async writes and GET /operations/{id}', () => {
  let user: User;
  let other: User;

  beforeAll(async () => {
    [user, other] = await Promise.all([newUser(), newUser()]);
  });

  it('answers 202 at once with `Prefer: respond-async`, then the operation confirms', async () => {
    const response = await user.api.post('/tokens', tokenBody('base', { symbol: 'ASY' }), {
      prefer: 'respond-async',
    });
    expect(summary(response)).toMatchObject({ status: 202 });
    expect(response.headers.get('preference-applied')).toBe('respond-async');
    expect(response.body).toMatchObject({ success: true, message: expect.any(String) });
    const accepted = response.body.data as Data;
    expect(accepted).toMatchObject({
      operation_id: expect.stringMatching(UUID),
      network: 'base',
      created_at: expect.stringMatching(ISO_MS),
    });
    expect(['queued', 'signed', 'submitted']).toContain(accepted.status);

    const settled = await settledOperation(user.api, accepted.operation_id);
    expect(settled).toMatchObject({
      operation_id: accepted.operation_id,
      status: 'confirmed',
      network: 'base',
      tx: expect.stringMatching(TX_HASH),
      mint_address: expect.stringMatching(EVM_ADDRESS),
      decimals: 6,
      amount: '1000',
      owner: user.wallet,
    });
    expect((await provider.getTransactionReceipt(settled.tx))?.status).toBe(1);
    expect(await read(tokenAt(settled.mint_address), 'totalSupply')).toBe(1_000_000_000n);
  });

  it('follows an async NFT mint to its token id on chain', async () => {
    const created = await createCollection(user, collectionBody('polygon'));
    const response = await user.api.post(
      `/nfts/${created.mint_address}/mint`,
      { name: 'Later', images: [IMAGE] },
      { prefer: 'respond-async' },
    );
    expect(summary(response)).toMatchObject({ status: 202 });
    const settled = await settledOperation(user.api, response.body.data.operation_id);
    expect(settled).toMatchObject({ status: 'confirmed', collection: created.mint_address });
    expect(
      await read(collectionAt(created.mint_address), 'ownerOf', BigInt(settled.token_id)),
    ).toBe(user.wallet);
  });

  it('answers 404 for an unknown operation id and for another account’s operation', async () => {
    const unknown = await user.api.get('/operations/4f1c2f55-6a8e-4f0e-9a51-3c1b6c0d7e21');
    expectError(unknown, 404, 'Not found');
    expectError(await user.api.get('/operations/not-a-uuid'), 404, 'Not found');

    const theirs = await createToken(other, tokenBody('base'));
    const mine = await other.api.get(`/operations/${theirs.operation_id}`);
    expect(summary(mine)).toMatchObject({ status: 200 });
    expectError(await user.api.get(`/operations/${theirs.operation_id}`), 404, 'Not found');
  });
});

// ---------------------------------------------------------------------------------------------
// Idempotency
// ---------------------------------------------------------------------------------------------

describe('Idempotency-Key', () => {
  let user: User;
  let mint: string;

  beforeAll(async () => {
    user = await newUser();
    mint = (await createToken(user, tokenBody('base'))).mint_address;
  });

  it('replays the same key and body: same operation, one transaction', async () => {
    const token = tokenAt(mint);
    const supply: bigint = await read(token, 'totalSupply');
    const nonce = await nonceOf(user.wallet);
    const headers = { 'idempotency-key': `mint-${Date.now()}` };

    const first = await user.api.post(`/tokens/${mint}/mint`, { amount: 5 }, headers);
    const firstData = await expectConfirmed(first, 'base');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await user.api.post(`/tokens/${mint}/mint`, { amount: 5 }, headers);
    const secondData = await expectConfirmed(second, 'base');
    expect(second.headers.get('idempotent-replayed')).toBe('true');

    expect(secondData.operation_id).toBe(firstData.operation_id);
    expect(secondData.tx).toBe(firstData.tx);
    expect(await nonceOf(user.wallet)).toBe(nonce + 1);
    expect(await read(token, 'totalSupply')).toBe(supply + 5_000_000n);
  });

  it('answers 409 for the same key with another body, and sends nothing', async () => {
    const headers = { 'idempotency-key': `create-${Date.now()}` };
    const first = await createTokenWithKey(headers);
    const nonce = await nonceOf(user.wallet);
    const supply: bigint = await read(tokenAt(first.mint_address), 'totalSupply');

    const other = await user.api.post('/tokens', tokenBody('base', { amount: 2000 }), headers);
    expectError(other, 409, 'Conflict', /Idempotency-Key/);
    expect(await nonceOf(user.wallet)).toBe(nonce);
    expect(await read(tokenAt(first.mint_address), 'totalSupply')).toBe(supply);

    const mintAgain = await user.api.post(`/tokens/${mint}/mint`, { amount: 6 }, headers);
    expectError(mintAgain, 409, 'Conflict', /Idempotency-Key/);
    expect(await nonceOf(user.wallet)).toBe(nonce);
  });

  it('replays a failed request’s error with the same key, and sends nothing', async () => {
    const token = tokenAt(mint);
    const supply: bigint = await read(token, 'totalSupply');
    const nonce = await nonceOf(user.wallet);
    const headers = { 'idempotency-key': `burn-too-much-${Date.now()}` };

    const first = await user.api.post(`/tokens/${mint}/burn`, { amount: 1_000_000 }, headers);
    expectError(first, 409, 'Conflict', /Insufficient balance/);
    const again = await user.api.post(`/tokens/${mint}/burn`, { amount: 1_000_000 }, headers);
    expectError(again, 409, 'Conflict', /Insufficient balance/);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await read(token, 'totalSupply')).toBe(supply);
    expect(await nonceOf(user.wallet)).toBe(nonce);
  });

  it('keeps keys per account: another account’s same key is a new operation', async () => {
    const other = await newUser();
    const headers = { 'idempotency-key': `shared-${Date.now()}` };
    const mine = await createTokenWithKey(headers);
    const theirs = await expectConfirmed(
      await other.api.post('/tokens', tokenBody('base'), headers),
      'base',
    );
    expect(theirs.operation_id).not.toBe(mine.operation_id);
    expect(theirs.owner).toBe(other.wallet);
    expect(await read(tokenAt(theirs.mint_address), 'balanceOf', other.wallet)).toBe(
      1_000_000_000n,
    );
  });

  async function createTokenWithKey(headers: Record<string, string>): Promise<Data> {
    return expectConfirmed(await user.api.post('/tokens', tokenBody('base'), headers), 'base');
  }
});

// ---------------------------------------------------------------------------------------------
// Every error of the contract's table that these endpoints can answer
// ---------------------------------------------------------------------------------------------

describe('errors', () => {
  let user: User;
  let other: User;
  /** The user's token (6 decimals, 1000 in the managed wallet). */
  let token: string;
  /** The user's collection, without a cap. */
  let collection: string;
  /** An item of `collection` minted to someone else. */
  let foreignItem: string;
  /** An item of `collection` already burned. */
  let burnedItem: string;
  /** An item of `collection` held by the managed wallet. */
  let heldItem: string;
  /** A collection with max_supply 1, its one item minted. */
  let fullCollection: string;
  let otherToken: string;
  let otherCollection: string;
  let otherItem: string;

  beforeAll(async () => {
    [user, other] = await Promise.all([newUser(), newUser()]);
    token = (await createToken(user, tokenBody('base'))).mint_address;
    collection = (await createCollection(user, collectionBody('base'))).mint_address;
    foreignItem = (await mintItem(user, collection, 'base', { recipient: randomAddress() }))
      .token_id;
    burnedItem = (await mintItem(user, collection, 'base')).token_id;
    await expectConfirmed(
      await user.api.post(`/nfts/${collection}/burn`, { tokenId: burnedItem }),
      'base',
    );
    heldItem = (await mintItem(user, collection, 'base')).token_id;
    fullCollection = (await createCollection(user, collectionBody('base', { max_supply: 1 })))
      .mint_address;
    await mintItem(user, fullCollection, 'base');
    otherToken = (await createToken(other, tokenBody('base'))).mint_address;
    otherCollection = (await createCollection(other, collectionBody('base'))).mint_address;
    otherItem = (await mintItem(other, otherCollection, 'base')).token_id;
  });

  describe('401 without an api-key', () => {
    const address = randomAddress();
    it.each([
      ['POST', '/tokens', tokenBody('base')],
      ['POST', `/tokens/${address}/mint`, { amount: 1 }],
      ['POST', `/tokens/${address}/burn`, { amount: 1 }],
      ['POST', `/tokens/${address}/transfer`, { amount: 1, recipient: address }],
      ['GET', `/tokens/${address}`, undefined],
      ['POST', '/nfts', collectionBody('base')],
      ['POST', `/nfts/${address}/mint`, { name: 'x', images: [IMAGE] }],
      ['POST', `/nfts/${address}/transfer`, { recipient: address, token_id: '1' }],
      ['POST', `/nfts/${address}/burn`, { tokenId: '1' }],
      ['GET', `/nfts/${address}`, undefined],
      ['GET', `/nfts/${address}?token_id=1`, undefined],
      ['GET', '/operations/4f1c2f55-6a8e-4f0e-9a51-3c1b6c0d7e21', undefined],
    ])('%s %s', async (method, path, body) => {
      const anonymous = await stack.http.request(method, path, body, {});
      expectError(anonymous, 401, 'Unauthorized', /^Invalid api-key$/);
      const wrongKey = await stack.http.request(method, path, body, {
        'api-key': 'ais_unknownkeyunknownkeyunknownkeyunknownkey00',
      });
      expectError(wrongKey, 401, 'Unauthorized', /^Invalid api-key$/);
    });
  });

  describe('400 Bad request', () => {
    it.each([
      ['an unknown network', { network: 'dogecoin' }, /network must be one of/],
      ['no name', { name: undefined }, /name/],
      ['an empty name', { name: '' }, /name must not be empty/],
      ['no symbol', { symbol: undefined }, /symbol/],
      ['no amount', { amount: undefined }, /amount/],
      ['amount 0', { amount: 0 }, /amount/],
      ['amount "0"', { amount: '0' }, /amount must be greater than 0/],
      ['a negative amount', { amount: -5 }, /amount/],
      ['a negative amount string', { amount: '-5' }, /amount/],
      ['amount "abc"', { amount: 'abc' }, /amount/],
      ['more fractional digits than decimals', { amount: '1.1234567' }, /6 fractional digits/],
      ['an amount beyond 2^53 as a JSON number', { amount: 2 ** 60 }, /must be sent as a decimal/],
      ['a non-URI image', { image: 'not a uri' }, /image must be a URL/],
      ['seller_fee 10001', { seller_fee: 10001 }, /seller_fee/],
      ['decimals 19', { decimals: 19 }, /decimals/],
      ['an unknown field', { max_suply: 3 }, /max_suply is not an accepted field/],
    ])('POST /tokens with %s', async (_, change, message) => {
      const nonce = await nonceOf(user.wallet);
      const response = await user.api.post('/tokens', tokenBody('base', change));
      expectError(response, 400, 'Bad request', message);
      expect(await nonceOf(user.wallet)).toBe(nonce);
    });

    it.each([
      ['an unknown network', { network: 'dogecoin' }, /network must be one of/],
      ['no name', { name: undefined }, /name/],
      ['no description', { description: undefined }, /description/],
      ['no images', { images: undefined }, /images/],
      ['empty images', { images: [] }, /images must contain at least 1 entry/],
      ['a non-URI image', { images: ['not a uri'] }, /each of images must be a URL/],
      ['seller_fee 10001', { seller_fee: 10001 }, /seller_fee/],
      ['seller_fee "10001"', { seller_fee: '10001' }, /seller_fee/],
      ['max_supply 0', { max_supply: 0 }, /max_supply/],
      [
        'different max_supply and maxSupply',
        { max_supply: 3, maxSupply: 4 },
        /max_supply and maxSupply differ/,
      ],
      ['an unknown field', { max_suply: 3 }, /max_suply is not an accepted field/],
    ])('POST /nfts with %s', async (_, change, message) => {
      const response = await user.api.post('/nfts', collectionBody('base', change));
      expectError(response, 400, 'Bad request', message);
    });

    it.each([
      ['amount 0', { amount: 0 }, /amount/],
      ['amount "0"', { amount: '0' }, /amount must be greater than 0/],
      ['a negative amount', { amount: -1 }, /amount/],
      ['amount "abc"', { amount: 'abc' }, /amount/],
      ['no amount', {}, /amount/],
      ['more fractional digits than decimals', { amount: '0.0000001' }, /6 fractional digits/],
      [
        'a Solana recipient',
        { amount: 1, recipient: SOLANA_ADDRESS },
        /recipient is not a base address/,
      ],
      ['a malformed recipient', { amount: 1, recipient: '0x1234' }, /recipient/],
      ['the other family’s network', { amount: 1, network: 'solana' }, NOT_SOLANA],
      ['an unknown network', { amount: 1, network: 'dogecoin' }, /network must be one of/],
      ['an unknown field', { amount: 1, memo: 'hi' }, /memo is not an accepted field/],
    ])('POST /tokens/{mint}/mint with %s', async (_, body, message) => {
      const supply: bigint = await read(tokenAt(token), 'totalSupply');
      expectError(await user.api.post(`/tokens/${token}/mint`, body), 400, 'Bad request', message);
      expect(await read(tokenAt(token), 'totalSupply')).toBe(supply);
    });

    it.each([
      ['amount 0', { amount: 0 }, /amount/],
      ['amount "abc"', { amount: 'abc' }, /amount/],
      ['more fractional digits than decimals', { amount: '1.0000001' }, /6 fractional digits/],
      ['the other family’s network', { amount: 1, network: 'solana' }, NOT_SOLANA],
      ['a recipient (not a burn field)', { amount: 1, recipient: randomAddress() }, /recipient/],
    ])('POST /tokens/{mint}/burn with %s', async (_, body, message) => {
      expectError(await user.api.post(`/tokens/${token}/burn`, body), 400, 'Bad request', message);
    });

    it.each([
      ['no recipient', { amount: 1 }, /recipient/],
      ['a Solana recipient', { amount: 1, recipient: SOLANA_ADDRESS }, /recipient is not a base/],
      ['amount -1', { amount: -1, recipient: randomAddress() }, /amount/],
      ['amount "0"', { amount: '0', recipient: randomAddress() }, /amount must be greater/],
      [
        'the other family’s network',
        { amount: 1, recipient: randomAddress(), network: 'solana' },
        NOT_SOLANA,
      ],
    ])('POST /tokens/{mint}/transfer with %s', async (_, body, message) => {
      const response = await user.api.post(`/tokens/${token}/transfer`, body);
      expectError(response, 400, 'Bad request', message);
    });

    it('GET /tokens/{mint} with the other family’s network, or an unknown one', async () => {
      const response = await user.api.get(`/tokens/${token}?network=solana`);
      expectError(response, 400, 'Bad request', NOT_SOLANA);
      expectError(
        await user.api.get(`/tokens/${token}?network=dogecoin`),
        400,
        'Bad request',
        /network must be one of/,
      );
    });

    it('every token route with another EVM network than the token’s (base vs polygon)', async () => {
      const contract = tokenAt(token);
      const supply: bigint = await read(contract, 'totalSupply');
      const nonce = await nonceOf(user.wallet);
      const mismatch = /network must match the token's \(base\)/;
      const body = { amount: 1, network: 'polygon' };
      expectError(
        await user.api.get(`/tokens/${token}?network=polygon`),
        400,
        'Bad request',
        mismatch,
      );
      expectError(await user.api.post(`/tokens/${token}/mint`, body), 400, 'Bad request', mismatch);
      expectError(await user.api.post(`/tokens/${token}/burn`, body), 400, 'Bad request', mismatch);
      expectError(
        await user.api.post(`/tokens/${token}/transfer`, { ...body, recipient: randomAddress() }),
        400,
        'Bad request',
        mismatch,
      );
      expect(await read(contract, 'totalSupply')).toBe(supply);
      expect(await nonceOf(user.wallet)).toBe(nonce);

      // `evm` is the default EVM network, base: it matches.
      const viaDefault = await user.api.get(`/tokens/${token}?network=evm`);
      expect(summary(viaDefault)).toMatchObject({
        status: 200,
        body: { data: { network: 'base' } },
      });
    });

    it('every NFT route with another EVM network than the collection’s', async () => {
      const mismatch = /network must match the NFT collection's \(base\)/;
      expectError(
        await user.api.get(`/nfts/${collection}?network=polygon`),
        400,
        'Bad request',
        mismatch,
      );
      expectError(
        await user.api.post(`/nfts/${collection}/mint`, {
          name: 'x',
          images: [IMAGE],
          network: 'polygon',
        }),
        400,
        'Bad request',
        mismatch,
      );
      expectError(
        await user.api.post(`/nfts/${collection}/transfer`, {
          recipient: randomAddress(),
          token_id: heldItem,
          network: 'polygon',
        }),
        400,
        'Bad request',
        mismatch,
      );
      expectError(
        await user.api.post(`/nfts/${collection}/burn`, { tokenId: heldItem, network: 'polygon' }),
        400,
        'Bad request',
        mismatch,
      );
      expect(await read(collectionAt(collection), 'ownerOf', BigInt(heldItem))).toBe(user.wallet);
    });

    it.each([
      ['no name', { images: [IMAGE] }, /name/],
      ['no images', { name: 'x' }, /images/],
      ['empty images', { name: 'x', images: [] }, /images must contain at least 1 entry/],
      ['a non-URI image', { name: 'x', images: ['nope'] }, /each of images must be a URL/],
      [
        'a Solana recipient',
        { name: 'x', images: [IMAGE], recipient: SOLANA_ADDRESS },
        /recipient is not a base address/,
      ],
      ['the other family’s network', { name: 'x', images: [IMAGE], network: 'solana' }, NOT_SOLANA],
      ['an unknown field', { name: 'x', images: [IMAGE], tokenId: 3 }, /tokenId is not an/],
    ])('POST /nfts/{collection}/mint with %s', async (_, body, message) => {
      const minted: bigint = await read(collectionAt(collection), 'totalMinted');
      const response = await user.api.post(`/nfts/${collection}/mint`, body);
      expectError(response, 400, 'Bad request', message);
      expect(await read(collectionAt(collection), 'totalMinted')).toBe(minted);
    });

    it('POST /nfts/{collection}/transfer without token_id on EVM', async () => {
      const response = await user.api.post(`/nfts/${collection}/transfer`, {
        recipient: randomAddress(),
      });
      expectError(response, 400, 'Bad request', /token_id is required on EVM/);
    });

    it.each(['abc', '-1', '1.5', '01', ''])(
      'refuses the malformed token id %p',
      async (tokenId) => {
        const transfer = await user.api.post(`/nfts/${collection}/transfer`, {
          recipient: randomAddress(),
          token_id: tokenId,
        });
        expectError(transfer, 400, 'Bad request', /token_id must be a token id/);
        const burn = await user.api.post(`/nfts/${collection}/burn`, { tokenId });
        expectError(burn, 400, 'Bad request', /tokenId must be a token id/);
        const get = await user.api.get(
          `/nfts/${collection}?token_id=${encodeURIComponent(tokenId)}`,
        );
        expectError(get, 400, 'Bad request', /token_id must be a token id/);
      },
    );

    it('refuses the zero address as a recipient before sending anything', async () => {
      const zero = '0x' + '0'.repeat(40);
      const nonce = await nonceOf(user.wallet);
      const mint = await user.api.post(`/nfts/${collection}/mint`, {
        name: 'lost',
        images: [IMAGE],
        recipient: zero,
      });
      expectError(mint, 400, 'Bad request', /zero address/);
      expect(await nonceOf(user.wallet)).toBe(nonce);
    });

    it.each([
      ['no recipient', () => ({ token_id: heldItem }), /recipient/],
      [
        'a Solana recipient',
        () => ({ token_id: heldItem, recipient: SOLANA_ADDRESS }),
        /recipient is not a base address/,
      ],
      [
        'the other family’s network',
        () => ({ token_id: heldItem, recipient: randomAddress(), network: 'solana' }),
        NOT_SOLANA,
      ],
    ])('POST /nfts/{collection}/transfer with %s', async (_, body, message) => {
      const owner = await read(collectionAt(collection), 'ownerOf', BigInt(heldItem));
      const response = await user.api.post(`/nfts/${collection}/transfer`, body());
      expectError(response, 400, 'Bad request', message);
      expect(await read(collectionAt(collection), 'ownerOf', BigInt(heldItem))).toBe(owner);
    });

    it('POST /nfts/{collection}/burn without tokenId, or with token_id', async () => {
      expectError(
        await user.api.post(`/nfts/${collection}/burn`, {}),
        400,
        'Bad request',
        /tokenId is required on EVM/,
      );
      expectError(
        await user.api.post(`/nfts/${collection}/burn`, { token_id: heldItem }),
        400,
        'Bad request',
        /token_id is not an accepted field/,
      );
      expect(await read(collectionAt(collection), 'ownerOf', BigInt(heldItem))).toBe(user.wallet);
    });

    it('GET /nfts/{collection} with the other family’s network', async () => {
      expectError(
        await user.api.get(`/nfts/${collection}?network=solana`),
        400,
        'Bad request',
        NOT_SOLANA,
      );
    });

    it.each([
      ['POST', '/tokens/0x1234/mint', { amount: 1 }],
      ['POST', '/tokens/not-an-address/burn', { amount: 1 }],
      [
        'POST',
        '/tokens/0xZZ34567890123456789012345678901234567890/transfer',
        { amount: 1, recipient: randomAddress() },
      ],
      ['GET', '/tokens/not-an-address', undefined],
      ['POST', '/nfts/0x1234/mint', { name: 'x', images: [IMAGE] }],
      ['POST', '/nfts/not-an-address/transfer', { recipient: randomAddress(), token_id: '1' }],
      ['POST', '/nfts/0x1234/burn', { tokenId: '1' }],
      ['GET', '/nfts/0x1234', undefined],
    ])('%s %s (a malformed address in the path)', async (method, path, body) => {
      const response = await user.api.request(method, path, body, {});
      expectError(response, 400, 'Bad request', /mint_address is not a Solana or EVM address/);
    });
  });

  describe('404 Not found', () => {
    const unknown = randomAddress();
    it.each([
      ['an unknown token', () => unknown],
      ['another account’s token', () => otherToken],
    ])('every token route with %s', async (_, address) => {
      const mint = address();
      expectError(await user.api.get(`/tokens/${mint}`), 404, 'Not found');
      expectError(
        await user.api.post(`/tokens/${mint}/mint`, { amount: 1 }),
        404,
        'Not found',
        /No token/,
      );
      expectError(await user.api.post(`/tokens/${mint}/burn`, { amount: 1 }), 404, 'Not found');
      expectError(
        await user.api.post(`/tokens/${mint}/transfer`, { amount: 1, recipient: user.wallet }),
        404,
        'Not found',
      );
    });

    it('leaves another account’s token untouched', async () => {
      const supply: bigint = await read(tokenAt(otherToken), 'totalSupply');
      expectError(
        await user.api.post(`/tokens/${otherToken}/burn`, { amount: 1 }),
        404,
        'Not found',
      );
      expect(await read(tokenAt(otherToken), 'totalSupply')).toBe(supply);
      expect(await read(tokenAt(otherToken), 'balanceOf', other.wallet)).toBe(1_000_000_000n);
    });

    it.each([
      ['an unknown collection', () => unknown, () => '1'],
      ['another account’s collection', () => otherCollection, () => otherItem],
    ])('every NFT route with %s', async (_, address, tokenId) => {
      const c = address();
      expectError(await user.api.get(`/nfts/${c}`), 404, 'Not found', /No NFT collection/);
      expectError(await user.api.get(`/nfts/${c}?token_id=${tokenId()}`), 404, 'Not found');
      expectError(
        await user.api.post(`/nfts/${c}/mint`, { name: 'x', images: [IMAGE] }),
        404,
        'Not found',
      );
      expectError(
        await user.api.post(`/nfts/${c}/transfer`, {
          recipient: user.wallet,
          token_id: tokenId(),
        }),
        404,
        'Not found',
      );
      expectError(await user.api.post(`/nfts/${c}/burn`, { tokenId: tokenId() }), 404, 'Not found');
    });

    it('an unknown token_id of an own collection', async () => {
      expectError(
        await user.api.get(`/nfts/${collection}?token_id=999`),
        404,
        'Not found',
        /No token 999/,
      );
      expectError(
        await user.api.post(`/nfts/${collection}/transfer`, {
          recipient: randomAddress(),
          token_id: '999',
        }),
        404,
        'Not found',
      );
      expectError(
        await user.api.post(`/nfts/${collection}/burn`, { tokenId: 999 }),
        404,
        'Not found',
      );
      expect(await read(collectionAt(otherCollection), 'ownerOf', BigInt(otherItem))).toBe(
        other.wallet,
      );
    });
  });

  describe('403 Forbidden', () => {
    it('transfer or burn of an item the managed wallet does not hold', async () => {
      const contract = collectionAt(collection);
      const holder = await read(contract, 'ownerOf', BigInt(foreignItem));
      expect(holder).not.toBe(user.wallet);
      const nonce = await nonceOf(user.wallet);

      expectError(
        await user.api.post(`/nfts/${collection}/transfer`, {
          recipient: user.wallet,
          token_id: foreignItem,
        }),
        403,
        'Forbidden',
      );
      expectError(
        await user.api.post(`/nfts/${collection}/burn`, { tokenId: foreignItem }),
        403,
        'Forbidden',
      );
      expect(await read(contract, 'ownerOf', BigInt(foreignItem))).toBe(holder);
      expect(await nonceOf(user.wallet)).toBe(nonce);
    });
  });

  describe('409 Conflict, with nothing changed on chain', () => {
    it('burn more than the balance', async () => {
      const contract = tokenAt(token);
      const supply: bigint = await read(contract, 'totalSupply');
      const balance: bigint = await read(contract, 'balanceOf', user.wallet);
      const nonce = await nonceOf(user.wallet);

      const response = await user.api.post(`/tokens/${token}/burn`, { amount: '1000.000001' });
      expectError(response, 409, 'Conflict', /Insufficient balance/);
      expect(await read(contract, 'totalSupply')).toBe(supply);
      expect(await read(contract, 'balanceOf', user.wallet)).toBe(balance);
      expect(await nonceOf(user.wallet)).toBe(nonce);
    });

    it('transfer more than the balance', async () => {
      const contract = tokenAt(token);
      const balance: bigint = await read(contract, 'balanceOf', user.wallet);
      const recipient = randomAddress();
      const nonce = await nonceOf(user.wallet);

      const response = await user.api.post(`/tokens/${token}/transfer`, {
        recipient,
        amount: '5000',
      });
      expectError(response, 409, 'Conflict', /Insufficient balance/);
      expect(await read(contract, 'balanceOf', user.wallet)).toBe(balance);
      expect(await read(contract, 'balanceOf', recipient)).toBe(0n);
      expect(await nonceOf(user.wallet)).toBe(nonce);
    });

    it('mint past max_supply', async () => {
      const contract = collectionAt(fullCollection);
      expect(await read(contract, 'totalMinted')).toBe(1n);
      const nonce = await nonceOf(user.wallet);

      const response = await user.api.post(`/nfts/${fullCollection}/mint`, {
        name: 'One too many',
        images: [IMAGE],
      });
      expectError(response, 409, 'Conflict', /max supply/);
      expect(await read(contract, 'totalMinted')).toBe(1n);
      await expect(read(contract, 'ownerOf', 2n)).rejects.toMatchObject({
        revert: { name: 'ERC721NonexistentToken' },
      });
      expect(await nonceOf(user.wallet)).toBe(nonce);
    });

    it('burn or transfer of an already burned item', async () => {
      const nonce = await nonceOf(user.wallet);
      expectError(
        await user.api.post(`/nfts/${collection}/burn`, { tokenId: burnedItem }),
        409,
        'Conflict',
        /already burned/,
      );
      expectError(
        await user.api.post(`/nfts/${collection}/transfer`, {
          recipient: randomAddress(),
          token_id: burnedItem,
        }),
        409,
        'Conflict',
        /already burned/,
      );
      await expect(
        read(collectionAt(collection), 'ownerOf', BigInt(burnedItem)),
      ).rejects.toMatchObject({ revert: { name: 'ERC721NonexistentToken' } });
      expect(await nonceOf(user.wallet)).toBe(nonce);
    });
  });
});
