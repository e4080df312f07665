import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  TokenAccountNotFoundError,
  getAccount,
  getAssociatedTokenAddressSync,
  getGroupMemberPointerState,
  getGroupPointerState,
  getMetadataPointerState,
  getMint,
  getTokenGroupMemberState,
  getTokenGroupState,
  getTokenMetadata,
  type Mint,
} from '@solana/spl-token';
import bs58 from 'bs58';
import { Wallet } from 'ethers';
import { queryDatabase } from '@test/support/chain-reads';
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
 * The token and NFT endpoints on Solana end to end: the API and the worker as their own
 * processes on the local profile (Solana on the local validator over litesvm), driven over HTTP
 * alone, with the chain state checked by the test's own RPC reads (web3.js + spl-token).
 */

interface User {
  api: HttpClient;
  /** The account's managed Solana wallet. */
  wallet: string;
}

const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{86,88}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const IMAGE = 'https://example.com/image.png';
const U64_MAX = 2n ** 64n - 1n;
/** A Solana mint address in the path, named with an EVM network. */
const notEvm = (network: string) =>
  new RegExp(`mint_address \\w{32,44} is not an EVM address \\(network ${network}\\)`);

let stack: ServiceStack;
let connection: Connection;

beforeAll(async () => {
  stack = await startServiceStack({ env: { RATE_LIMIT_REQUESTS: '100000' } });
  connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
});

afterAll(async () => {
  await stack?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers: the test's own chain reads
// ---------------------------------------------------------------------------------------------

async function newUser(): Promise<User> {
  const { api, account } = await newAccountClient(stack.http);
  return { api, wallet: account.wallets.find((w) => w.network === 'solana')!.public_key };
}

function randomAddress(): string {
  return Keypair.generate().publicKey.toBase58();
}

const key = (address: string) => new PublicKey(address);

function mintAt(address: string): Promise<Mint> {
  return getMint(connection, key(address), 'confirmed', TOKEN_2022_PROGRAM_ID);
}

async function supplyOf(address: string): Promise<bigint> {
  return (await mintAt(address)).supply;
}

function ataOf(mint: string, owner: string): PublicKey {
  return getAssociatedTokenAddressSync(key(mint), key(owner), true, TOKEN_2022_PROGRAM_ID);
}

/** What an owner holds of a mint in its associated account (0 when it has none). */
async function balanceOf(mint: string, owner: string): Promise<bigint> {
  try {
    return (await getAccount(connection, ataOf(mint, owner), 'confirmed', TOKEN_2022_PROGRAM_ID))
      .amount;
  } catch (error) {
    if (error instanceof TokenAccountNotFoundError) return 0n;
    throw error;
  }
}

async function ownerProgram(address: string): Promise<string | undefined> {
  return (await connection.getAccountInfo(key(address)))?.owner.toBase58();
}

async function metadataOf(address: string) {
  return getTokenMetadata(connection, key(address), 'confirmed', TOKEN_2022_PROGRAM_ID);
}

/** The newest transaction of an address: unchanged means nothing was sent from it. */
async function lastSignature(address: string): Promise<string | undefined> {
  return (await connection.getSignaturesForAddress(key(address), { limit: 1 }))[0]?.signature;
}

/**
 * A write answered 200 and confirmed on chain: the contract's common fields, and the
 * transaction's status, read by the test itself, without error. Returns `data`.
 */
async function expectConfirmed(response: HttpResponse): Promise<Data> {
  const data = expectConfirmedEnvelope(response, 'solana', SIGNATURE);
  const { value } = await connection.getSignatureStatus(data.tx, {
    searchTransactionHistory: true,
  });
  expect(value).toMatchObject({ err: null });
  return data;
}

const tokenBody = (extra: Data = {}): Data => ({
  network: 'solana',
  name: 'Example Token',
  symbol: 'EXT',
  amount: 1000,
  decimals: 6,
  ...extra,
});

const collectionBody = (extra: Data = {}): Data => ({
  network: 'solana',
  name: 'Example Collection',
  symbol: 'EXC',
  description: 'A collection for the tests',
  images: [IMAGE],
  ...extra,
});

async function createToken(user: User, body: Data = tokenBody()): Promise<Data> {
  return expectConfirmed(await user.api.post('/tokens', body));
}

async function createCollection(user: User, body: Data = collectionBody()): Promise<Data> {
  return expectConfirmed(await user.api.post('/nfts', body));
}

async function mintItem(user: User, collection: string, body: Data = {}): Promise<Data> {
  return expectConfirmed(
    await user.api.post(`/nfts/${collection}/mint`, { name: 'Item', images: [IMAGE], ...body }),
  );
}

async function metadataDocument(uri: string): Promise<Data> {
  expect(uri.startsWith(`${stack.http.baseUrl}/metadata/`)).toBe(true);
  const response = await stack.http.get(new URL(uri).pathname);
  expect(summary(response)).toMatchObject({ status: 200 });
  return response.body as Data;
}

// ---------------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------------

describe('Solana tokens (Token-2022 with metadata)', () => {
  let user: User;

  beforeAll(async () => {
    user = await newUser();
  });

  it('creates a Token-2022 mint with metadata, supply in the managed wallet (POST /tokens)', async () => {
    const data = await createToken(user, {
      network: 'solana',
      name: 'Solana Token',
      symbol: 'SOLT',
      amount: 1000,
      decimals: 6,
      description: 'A test token',
      image: IMAGE,
      website: 'https://example.com',
    });
    expect(data).toMatchObject({
      mint_address: expect.stringMatching(SOLANA_ADDRESS),
      metadata_uri: expect.stringContaining('/metadata/'),
      decimals: 6,
      amount: '1000',
      owner: user.wallet,
    });
    const mint = data.mint_address as string;

    expect(await ownerProgram(mint)).toBe(TOKEN_2022_PROGRAM_ID.toBase58());
    const info = await mintAt(mint);
    expect(info.decimals).toBe(6);
    expect(info.supply).toBe(1_000_000_000n);
    expect(info.mintAuthority?.toBase58()).toBe(user.wallet);
    expect(info.freezeAuthority).toBeNull();
    expect(getMetadataPointerState(info)?.metadataAddress?.toBase58()).toBe(mint);
    expect(await balanceOf(mint, user.wallet)).toBe(1_000_000_000n);

    const metadata = await metadataOf(mint);
    expect(metadata).toMatchObject({
      name: 'Solana Token',
      symbol: 'SOLT',
      uri: data.metadata_uri,
    });
    expect(metadata?.updateAuthority?.toBase58()).toBe(user.wallet);
    expect(await metadataDocument(data.metadata_uri)).toMatchObject({
      name: 'Solana Token',
      symbol: 'SOLT',
      description: 'A test token',
      image: IMAGE,
      decimals: 6,
    });
  });

  it('defaults decimals to 9 and takes a decimal string', async () => {
    const data = await createToken(user, {
      network: 'solana',
      name: 'Nine',
      symbol: 'NIN',
      amount: '1234.567891234',
    });
    expect(data).toMatchObject({ decimals: 9, amount: '1234.567891234' });
    const info = await mintAt(data.mint_address);
    expect(info.decimals).toBe(9);
    expect(info.supply).toBe(1_234_567_891_234n);
  });

  it('takes up to the u64 maximum of base units, as a string', async () => {
    const data = await createToken(user, tokenBody({ amount: '18446744073709.551615' }));
    expect(await supplyOf(data.mint_address)).toBe(U64_MAX);
  });

  describe('on an existing token', () => {
    let mint: string;
    let metadataUri: string;

    beforeAll(async () => {
      const data = await createToken(user, tokenBody({ name: 'Operated', symbol: 'OPR' }));
      mint = data.mint_address;
      metadataUri = data.metadata_uri;
    });

    it('mints to the managed wallet by default (POST /tokens/{mint}/mint)', async () => {
      const supply = await supplyOf(mint);
      const balance = await balanceOf(mint, user.wallet);
      const data = await expectConfirmed(
        await user.api.post(`/tokens/${mint}/mint`, { amount: '250.5' }),
      );
      expect(data).toMatchObject({ mint_address: mint, amount: '250.5', recipient: user.wallet });
      expect(await supplyOf(mint)).toBe(supply + 250_500_000n);
      expect(await balanceOf(mint, user.wallet)).toBe(balance + 250_500_000n);
    });

    it('mints to a recipient, creating its associated token account', async () => {
      const supply = await supplyOf(mint);
      const recipient = randomAddress();
      expect(await connection.getAccountInfo(ataOf(mint, recipient))).toBeNull();
      const data = await expectConfirmed(
        await user.api.post(`/tokens/${mint}/mint`, { amount: 42, recipient }),
      );
      expect(data).toMatchObject({ mint_address: mint, amount: '42', recipient });
      expect(await balanceOf(mint, recipient)).toBe(42_000_000n);
      expect(await ownerProgram(ataOf(mint, recipient).toBase58())).toBe(
        TOKEN_2022_PROGRAM_ID.toBase58(),
      );
      expect(await supplyOf(mint)).toBe(supply + 42_000_000n);
    });

    it('burns from the managed wallet (POST /tokens/{mint}/burn)', async () => {
      const supply = await supplyOf(mint);
      const balance = await balanceOf(mint, user.wallet);
      const data = await expectConfirmed(
        await user.api.post(`/tokens/${mint}/burn`, { amount: '100.25' }),
      );
      expect(data).toMatchObject({ mint_address: mint, amount: '100.25' });
      expect(await supplyOf(mint)).toBe(supply - 100_250_000n);
      expect(await balanceOf(mint, user.wallet)).toBe(balance - 100_250_000n);
    });

    it('transfers with transferChecked, creating the recipient’s account, then reusing it', async () => {
      const supply = await supplyOf(mint);
      const balance = await balanceOf(mint, user.wallet);
      const recipient = randomAddress();
      const data = await expectConfirmed(
        await user.api.post(`/tokens/${mint}/transfer`, { recipient, amount: '12.000001' }),
      );
      expect(data).toMatchObject({ mint_address: mint, amount: '12.000001', recipient });
      expect(await balanceOf(mint, recipient)).toBe(12_000_001n);

      await expectConfirmed(
        await user.api.post(`/tokens/${mint}/transfer`, { recipient, amount: 1 }),
      );
      expect(await balanceOf(mint, recipient)).toBe(13_000_001n);
      expect(await balanceOf(mint, user.wallet)).toBe(balance - 13_000_001n);
      expect(await supplyOf(mint)).toBe(supply);

      const tx = await connection.getParsedTransaction(data.tx, {
        maxSupportedTransactionVersion: 0,
      });
      const programs = tx?.transaction.message.instructions.map((ix) => ix.programId.toBase58());
      expect(programs).toContain(TOKEN_2022_PROGRAM_ID.toBase58());
    });

    it('reads the token with its live supply (GET /tokens/{mint})', async () => {
      const response = await user.api.get(`/tokens/${mint}`);
      expect(summary(response)).toMatchObject({ status: 200 });
      expect(response.body.data).toEqual({
        network: 'solana',
        mint_address: mint,
        name: 'Operated',
        symbol: 'OPR',
        decimals: 6,
        supply: expect.any(String),
        owner: user.wallet,
        metadata_uri: metadataUri,
        created_at: expect.stringMatching(ISO_MS),
        as_of: expect.stringMatching(ISO_MS),
        cached: expect.any(Boolean),
      });
      expect(toBase(response.body.data.supply, 6)).toBe(await supplyOf(mint));
      const withNetwork = await user.api.get(`/tokens/${mint}?network=solana`);
      expect(summary(withNetwork)).toMatchObject({
        status: 200,
        body: { data: { mint_address: mint } },
      });
    });
  });
});

function toBase(amount: string, decimals: number): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

// ---------------------------------------------------------------------------------------------
// NFT collections and items
// ---------------------------------------------------------------------------------------------

describe('Solana NFT collections (token groups) and items (group members)', () => {
  let user: User;

  beforeAll(async () => {
    user = await newUser();
  });

  it('creates a collection: a 0-decimal mint with GroupPointer + TokenGroup and metadata (POST /nfts)', async () => {
    const body = collectionBody({
      name: 'Solana Collection',
      symbol: 'SCOL',
      description: 'Three items at most',
      images: [IMAGE, 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi'],
      website: 'https://example.com/collection',
      attributes: [{ trait_type: 'tier', value: 'gold' }],
      seller_fee: 500,
      max_supply: 3,
    });
    const data = await createCollection(user, body);
    expect(data).toMatchObject({
      mint_address: expect.stringMatching(SOLANA_ADDRESS),
      metadata_uri: expect.stringContaining('/metadata/'),
    });
    const mint = data.mint_address as string;

    expect(await ownerProgram(mint)).toBe(TOKEN_2022_PROGRAM_ID.toBase58());
    const info = await mintAt(mint);
    expect(info.decimals).toBe(0);
    expect(info.supply).toBe(0n);
    expect(info.mintAuthority?.toBase58()).toBe(user.wallet);
    expect(getGroupPointerState(info)?.groupAddress?.toBase58()).toBe(mint);
    expect(getMetadataPointerState(info)?.metadataAddress?.toBase58()).toBe(mint);
    const group = getTokenGroupState(info);
    expect(group).toMatchObject({ size: 0n, maxSize: 3n });
    expect(group?.updateAuthority?.toBase58()).toBe(user.wallet);
    expect(group?.mint?.toBase58()).toBe(mint);

    const metadata = await metadataOf(mint);
    expect(metadata).toMatchObject({
      name: 'Solana Collection',
      symbol: 'SCOL',
      uri: data.metadata_uri,
    });
    expect(metadata?.additionalMetadata).toEqual([['seller_fee_basis_points', '500']]);
    expect(await metadataDocument(data.metadata_uri)).toMatchObject({
      name: 'Solana Collection',
      symbol: 'SCOL',
      images: body.images,
      attributes: body.attributes,
      seller_fee_basis_points: 500,
    });
  });

  it('has no size limit without max_supply (the u64 maximum), and no URI without uploadMetadata', async () => {
    const data = await createCollection(user, collectionBody({ uploadMetadata: false }));
    expect(data.metadata_uri).toBeNull();
    const info = await mintAt(data.mint_address);
    expect(getTokenGroupState(info)).toMatchObject({ size: 0n, maxSize: U64_MAX });
    expect(await metadataOf(data.mint_address)).toMatchObject({
      name: 'Example Collection',
      symbol: 'EXC',
      uri: '',
    });
  });

  it('takes the `maxSupply` spelling', async () => {
    const data = await createCollection(user, collectionBody({ maxSupply: 7 }));
    expect(getTokenGroupState(await mintAt(data.mint_address))?.maxSize).toBe(7n);
  });

  describe('items of a collection', () => {
    let collection: string;

    beforeAll(async () => {
      collection = (await createCollection(user, collectionBody({ name: 'Items', max_supply: 50 })))
        .mint_address;
    });

    it('mints an item: its own 0-decimal mint, group member, supply 1, mint authority removed', async () => {
      const sizeBefore = getTokenGroupState(await mintAt(collection))!.size!;
      const attributes = [{ trait_type: 'color', value: 'red' }];
      const data = await mintItem(user, collection, {
        name: 'Red item',
        description: 'a red one',
        attributes,
      });
      expect(data).toMatchObject({
        collection,
        mint_address: expect.stringMatching(SOLANA_ADDRESS),
        token_id: data.mint_address,
        metadata_uri: expect.stringContaining('/metadata/'),
        owner: user.wallet,
      });
      const item = data.mint_address as string;
      expect(item).not.toBe(collection);

      expect(await ownerProgram(item)).toBe(TOKEN_2022_PROGRAM_ID.toBase58());
      const info = await mintAt(item);
      expect(info).toMatchObject({ decimals: 0, supply: 1n, mintAuthority: null });
      expect(getGroupMemberPointerState(info)?.memberAddress?.toBase58()).toBe(item);
      const member = getTokenGroupMemberState(info);
      expect(member?.group?.toBase58()).toBe(collection);
      expect(member?.mint?.toBase58()).toBe(item);
      expect(member?.memberNumber).toBe(sizeBefore + 1n);
      expect(getTokenGroupState(await mintAt(collection))?.size).toBe(sizeBefore + 1n);
      expect(await balanceOf(item, user.wallet)).toBe(1n);
      expect(await metadataOf(item)).toMatchObject({
        name: 'Red item',
        symbol: 'EXC',
        uri: data.metadata_uri,
      });
      expect(await metadataDocument(data.metadata_uri)).toMatchObject({
        name: 'Red item',
        description: 'a red one',
        image: IMAGE,
        attributes,
      });
    });

    it('mints an item to a recipient, with its own symbol', async () => {
      const recipient = randomAddress();
      const data = await mintItem(user, collection, { name: 'Gift', symbol: 'GIFT', recipient });
      expect(data).toMatchObject({ collection, owner: recipient });
      expect(await balanceOf(data.mint_address, recipient)).toBe(1n);
      expect(await balanceOf(data.mint_address, user.wallet)).toBe(0n);
      expect(await metadataOf(data.mint_address)).toMatchObject({ name: 'Gift', symbol: 'GIFT' });
    });

    it('transfers an item addressed by its own mint (POST /nfts/{item mint}/transfer)', async () => {
      const item = (await mintItem(user, collection, { name: 'To send' })).mint_address;
      const recipient = randomAddress();
      const data = await expectConfirmed(
        await user.api.post(`/nfts/${item}/transfer`, { recipient }),
      );
      expect(data).toMatchObject({
        mint_address: item,
        token_id: item,
        collection,
        from: user.wallet,
        recipient,
      });
      expect(await balanceOf(item, recipient)).toBe(1n);
      expect(await supplyOf(item)).toBe(1n);
      // The managed wallet's emptied account was closed (its rent reclaimed).
      expect(await connection.getAccountInfo(ataOf(item, user.wallet))).toBeNull();

      const view = await user.api.get(`/nfts/${item}`);
      expect(summary(view)).toMatchObject({
        status: 200,
        body: { data: { type: 'item', owner: recipient, burned: false, token_id: item } },
      });
    });

    it('transfers an item addressed by collection and token_id', async () => {
      const item = (await mintItem(user, collection, { name: 'To send too' })).mint_address;
      const recipient = randomAddress();
      const data = await expectConfirmed(
        await user.api.post(`/nfts/${collection}/transfer`, { recipient, token_id: item }),
      );
      expect(data).toMatchObject({ mint_address: item, token_id: item, recipient });
      expect(await balanceOf(item, recipient)).toBe(1n);
    });

    it('burns an item addressed by its own mint (POST /nfts/{item mint}/burn)', async () => {
      const item = (await mintItem(user, collection, { name: 'To burn' })).mint_address;
      const size = getTokenGroupState(await mintAt(collection))!.size;
      const data = await expectConfirmed(await user.api.post(`/nfts/${item}/burn`, {}));
      expect(data).toMatchObject({ mint_address: item, token_id: item, from: user.wallet });
      expect(await supplyOf(item)).toBe(0n);
      expect(await connection.getAccountInfo(ataOf(item, user.wallet))).toBeNull();
      // Membership is history: the group's size does not go down.
      expect(getTokenGroupState(await mintAt(collection))?.size).toBe(size);

      const view = await user.api.get(`/nfts/${item}`);
      expect(summary(view)).toMatchObject({
        status: 200,
        body: { data: { type: 'item', owner: null, burned: true } },
      });
    });

    it('burns an item addressed by collection and tokenId', async () => {
      const item = (await mintItem(user, collection, { name: 'To burn too' })).mint_address;
      const data = await expectConfirmed(
        await user.api.post(`/nfts/${collection}/burn`, { tokenId: item }),
      );
      expect(data).toMatchObject({ mint_address: item, token_id: item });
      expect(await supplyOf(item)).toBe(0n);
    });

    it('reads the collection and an item (GET /nfts/{mint})', async () => {
      const item = await mintItem(user, collection, {
        name: 'Readable',
        attributes: [{ trait_type: 'size', value: 3 }],
      });
      const response = await user.api.get(`/nfts/${collection}`);
      expect(summary(response)).toMatchObject({ status: 200 });
      expect(response.body.data).toMatchObject({
        type: 'collection',
        network: 'solana',
        mint_address: collection,
        name: 'Items',
        symbol: 'EXC',
        description: 'A collection for the tests',
        images: [IMAGE],
        seller_fee: 0,
        max_supply: '50',
        minted: String(getTokenGroupState(await mintAt(collection))!.size),
        metadata_uri: expect.stringContaining('/metadata/'),
        owner: user.wallet,
        created_at: expect.stringMatching(ISO_MS),
      });
      expect((await metadataOf(collection))?.uri).toBe(response.body.data.metadata_uri);

      const expected = {
        type: 'item',
        network: 'solana',
        collection,
        mint_address: item.mint_address,
        token_id: item.mint_address,
        owner: user.wallet,
        burned: false,
        metadata_uri: item.metadata_uri,
        name: 'Readable',
        images: [IMAGE],
        attributes: [{ trait_type: 'size', value: 3 }],
      };
      const byMint = await user.api.get(`/nfts/${item.mint_address}`);
      expect(summary(byMint)).toMatchObject({ status: 200, body: { data: expected } });
      const byTokenId = await user.api.get(`/nfts/${collection}?token_id=${item.mint_address}`);
      expect(summary(byTokenId)).toMatchObject({ status: 200, body: { data: expected } });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Async writes, operations, idempotency
// ---------------------------------------------------------------------------------------------

describe('async writes and GET /operations/{id} on Solana', () => {
  let user: User;
  let other: User;

  beforeAll(async () => {
    [user, other] = await Promise.all([newUser(), newUser()]);
  });

  it('answers 202 at once with `Prefer: respond-async`, then the operation confirms', async () => {
    const response = await user.api.post('/tokens', tokenBody({ symbol: 'ASY' }), {
      prefer: 'respond-async',
    });
    expect(summary(response)).toMatchObject({ status: 202 });
    const accepted = response.body.data as Data;
    expect(accepted).toMatchObject({
      operation_id: expect.stringMatching(UUID),
      network: 'solana',
    });
    expect(['queued', 'signed', 'submitted']).toContain(accepted.status);

    const settled = await settledOperation(user.api, accepted.operation_id);
    expect(settled).toMatchObject({
      operation_id: accepted.operation_id,
      kind: 'token.create',
      status: 'confirmed',
      network: 'solana',
      tx: expect.stringMatching(SIGNATURE),
      mint_address: expect.stringMatching(SOLANA_ADDRESS),
      decimals: 6,
      amount: '1000',
      owner: user.wallet,
    });
    expect(await supplyOf(settled.mint_address)).toBe(1_000_000_000n);
  });

  it('follows an async NFT mint to its item mint on chain', async () => {
    const collection = (await createCollection(user)).mint_address;
    const response = await user.api.post(
      `/nfts/${collection}/mint`,
      { name: 'Later', images: [IMAGE] },
      { prefer: 'respond-async' },
    );
    expect(summary(response)).toMatchObject({ status: 202 });
    const settled = await settledOperation(user.api, response.body.data.operation_id);
    expect(settled).toMatchObject({ status: 'confirmed', collection });
    expect(settled.token_id).toBe(settled.mint_address);
    expect(await balanceOf(settled.mint_address, user.wallet)).toBe(1n);
    // The item's mint is its row's new mint address; its result does not hold it again.
    expect(
      await queryDatabase(
        stack.services.databaseUrl,
        `SELECT result, new_mint_address FROM operations WHERE id = $1`,
        [settled.operation_id],
      ),
    ).toEqual([{ result: {}, new_mint_address: settled.mint_address }]);
  });

  it('answers 404 for an unknown operation id and for another account’s operation', async () => {
    expectError(
      await user.api.get('/operations/4f1c2f55-6a8e-4f0e-9a51-3c1b6c0d7e21'),
      404,
      'Not found',
    );
    const theirs = await createToken(other);
    expect(summary(await other.api.get(`/operations/${theirs.operation_id}`))).toMatchObject({
      status: 200,
    });
    expectError(await user.api.get(`/operations/${theirs.operation_id}`), 404, 'Not found');
  });
});

describe('Idempotency-Key on Solana', () => {
  let user: User;
  let mint: string;

  beforeAll(async () => {
    user = await newUser();
    mint = (await createToken(user)).mint_address;
  });

  it('replays the same key and body: same operation, one transaction', async () => {
    const supply = await supplyOf(mint);
    const headers = { 'idempotency-key': `mint-${Date.now()}` };
    const first = await expectConfirmed(
      await user.api.post(`/tokens/${mint}/mint`, { amount: 5 }, headers),
    );
    const second = await user.api.post(`/tokens/${mint}/mint`, { amount: 5 }, headers);
    const replay = await expectConfirmed(second);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.operation_id).toBe(first.operation_id);
    expect(replay.tx).toBe(first.tx);
    expect(await supplyOf(mint)).toBe(supply + 5_000_000n);
  });

  it('replays an NFT mint: one item', async () => {
    const collection = (await createCollection(user)).mint_address;
    const headers = { 'idempotency-key': `nft-${Date.now()}` };
    const body = { name: 'Once', images: [IMAGE] };
    const first = await expectConfirmed(
      await user.api.post(`/nfts/${collection}/mint`, body, headers),
    );
    const again = await expectConfirmed(
      await user.api.post(`/nfts/${collection}/mint`, body, headers),
    );
    expect(again.mint_address).toBe(first.mint_address);
    expect(getTokenGroupState(await mintAt(collection))?.size).toBe(1n);
  });

  it('answers 409 for the same key with another body, and sends nothing', async () => {
    const headers = { 'idempotency-key': `create-${Date.now()}` };
    await createTokenWithKey(headers);
    const before = await lastSignature(user.wallet);
    expectError(
      await user.api.post('/tokens', tokenBody({ amount: 2000 }), headers),
      409,
      'Conflict',
      /Idempotency-Key/,
    );
    expectError(
      await user.api.post(`/tokens/${mint}/mint`, { amount: 6 }, headers),
      409,
      'Conflict',
      /Idempotency-Key/,
    );
    expect(await lastSignature(user.wallet)).toBe(before);
  });

  it('replays a failed request’s error with the same key, and sends nothing', async () => {
    const supply = await supplyOf(mint);
    const before = await lastSignature(user.wallet);
    const headers = { 'idempotency-key': `burn-too-much-${Date.now()}` };
    const first = await user.api.post(`/tokens/${mint}/burn`, { amount: 1_000_000 }, headers);
    expectError(first, 409, 'Conflict', /Insufficient balance/);
    const again = await user.api.post(`/tokens/${mint}/burn`, { amount: 1_000_000 }, headers);
    expectError(again, 409, 'Conflict', /Insufficient balance/);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await supplyOf(mint)).toBe(supply);
    expect(await lastSignature(user.wallet)).toBe(before);
  });

  async function createTokenWithKey(headers: Record<string, string>): Promise<Data> {
    return expectConfirmed(await user.api.post('/tokens', tokenBody(), headers));
  }
});

// ---------------------------------------------------------------------------------------------
// Errors of the contract, on Solana
// ---------------------------------------------------------------------------------------------

describe('Solana errors', () => {
  let user: User;
  let other: User;
  let token: string;
  let collection: string;
  let fullCollection: string;
  let heldItem: string;
  let foreignItem: string;
  let burnedItem: string;
  let otherToken: string;
  let otherCollection: string;
  let otherItem: string;
  const evmAddress = Wallet.createRandom().address;

  beforeAll(async () => {
    [user, other] = await Promise.all([newUser(), newUser()]);
    token = (await createToken(user)).mint_address;
    collection = (await createCollection(user)).mint_address;
    fullCollection = (await createCollection(user, collectionBody({ max_supply: 1 }))).mint_address;
    await mintItem(user, fullCollection);
    heldItem = (await mintItem(user, collection)).mint_address;
    foreignItem = (await mintItem(user, collection, { recipient: randomAddress() })).mint_address;
    burnedItem = (await mintItem(user, collection)).mint_address;
    await expectConfirmed(await user.api.post(`/nfts/${burnedItem}/burn`, {}));
    otherToken = (await createToken(other)).mint_address;
    otherCollection = (await createCollection(other)).mint_address;
    otherItem = (await mintItem(other, otherCollection)).mint_address;
  });

  describe('400 Bad request, with nothing sent', () => {
    let before: string | undefined;
    beforeEach(async () => {
      before = await lastSignature(user.wallet);
    });
    afterEach(async () => {
      expect(await lastSignature(user.wallet)).toBe(before);
    });

    it.each([
      [
        'an amount beyond the u64 maximum',
        tokenBody({ amount: '18446744073709.551616' }),
        /u64|hold/,
      ],
      ['more fractional digits than decimals', tokenBody({ amount: '1.0000001' }), /fractional/],
      ['no symbol', { network: 'solana', name: 'x', amount: 1 }, /symbol/],
    ])('POST /tokens with %s', async (_, body, message) => {
      expectError(await user.api.post('/tokens', body), 400, 'Bad request', message);
    });

    it.each([
      [
        'an EVM recipient',
        { amount: 1, recipient: evmAddress },
        /recipient is not a solana address/,
      ],
      ['an EVM network', { amount: 1, network: 'base' }, notEvm('base')],
      ['amount 0', { amount: 0 }, /amount/],
    ])('POST /tokens/{mint}/mint with %s', async (_, body, message) => {
      expectError(await user.api.post(`/tokens/${token}/mint`, body), 400, 'Bad request', message);
    });

    it.each([
      ['no recipient', { amount: 1 }, /recipient/],
      [
        'an EVM recipient',
        { amount: 1, recipient: evmAddress },
        /recipient is not a solana address/,
      ],
      ['a malformed recipient', { amount: 1, recipient: 'not-base58-0OIl' }, /recipient/],
    ])('POST /tokens/{mint}/transfer with %s', async (_, body, message) => {
      expectError(
        await user.api.post(`/tokens/${token}/transfer`, body),
        400,
        'Bad request',
        message,
      );
    });

    it.each([
      ['a 31-byte base58 key', bs58.encode(Buffer.alloc(31, 7))],
      ['a base58 string with a forbidden letter', 'O'.repeat(44)],
    ])('a malformed mint address in the path: %s', async (_, address) => {
      const message = /mint_address is not a Solana or EVM address/;
      expectError(await user.api.get(`/tokens/${address}`), 400, 'Bad request', message);
      expectError(
        await user.api.post(`/tokens/${address}/mint`, { amount: 1 }),
        400,
        'Bad request',
        message,
      );
      expectError(await user.api.get(`/nfts/${address}`), 400, 'Bad request', message);
      expectError(await user.api.post(`/nfts/${address}/burn`, {}), 400, 'Bad request', message);
    });

    it('GET and burn with an EVM network', async () => {
      expectError(
        await user.api.get(`/tokens/${token}?network=base`),
        400,
        'Bad request',
        notEvm('base'),
      );
      expectError(
        await user.api.post(`/tokens/${token}/burn`, { amount: 1, network: 'polygon' }),
        400,
        'Bad request',
        notEvm('polygon'),
      );
    });

    it.each([
      [
        'an EVM recipient',
        { name: 'x', images: [IMAGE], recipient: evmAddress },
        /recipient is not a solana address/,
      ],
      ['an EVM network', { name: 'x', images: [IMAGE], network: 'base' }, notEvm('base')],
      ['no images', { name: 'x' }, /images/],
    ])('POST /nfts/{collection}/mint with %s', async (_, body, message) => {
      expectError(
        await user.api.post(`/nfts/${collection}/mint`, body),
        400,
        'Bad request',
        message,
      );
    });

    it('NFT transfer and burn: recipient, token_id and addressing rules', async () => {
      expectError(
        await user.api.post(`/nfts/${heldItem}/transfer`, { recipient: evmAddress }),
        400,
        'Bad request',
        /recipient is not a solana address/,
      );
      expectError(
        await user.api.post(`/nfts/${heldItem}/transfer`, {}),
        400,
        'Bad request',
        /recipient/,
      );
      expectError(
        await user.api.post(`/nfts/${collection}/transfer`, { recipient: randomAddress() }),
        400,
        'Bad request',
        /token_id \(the item's mint address\) is required/,
      );
      expectError(
        await user.api.post(`/nfts/${collection}/burn`, {}),
        400,
        'Bad request',
        /tokenId \(the item's mint address\) is required/,
      );
      expectError(
        await user.api.post(`/nfts/${collection}/transfer`, {
          recipient: randomAddress(),
          token_id: '7',
        }),
        400,
        'Bad request',
        /token_id must be an item's mint address/,
      );
      expectError(
        await user.api.post(`/nfts/${heldItem}/burn`, { tokenId: burnedItem }),
        400,
        'Bad request',
        /tokenId must be the item's mint address/,
      );
      expectError(
        await user.api.post(`/nfts/${heldItem}/transfer`, {
          recipient: randomAddress(),
          network: 'base',
        }),
        400,
        'Bad request',
        notEvm('base'),
      );
      expectError(
        await user.api.get(`/nfts/${heldItem}?network=ethereum`),
        400,
        'Bad request',
        notEvm('ethereum'),
      );
      expect(await balanceOf(heldItem, user.wallet)).toBe(1n);
    });
  });

  describe('401 Unauthorized', () => {
    it.each([
      ['no api-key', {}],
      ['an unknown api-key', { 'api-key': 'ais_not-a-key' }],
    ])('every Solana route with %s', async (_, headers) => {
      const api = stack.http.with(headers);
      for (const response of [
        await api.post('/tokens', tokenBody()),
        await api.get(`/tokens/${token}`),
        await api.post(`/tokens/${token}/mint`, { amount: 1 }),
        await api.post('/nfts', collectionBody()),
        await api.post(`/nfts/${collection}/mint`, { name: 'x', images: [IMAGE] }),
        await api.post(`/nfts/${heldItem}/burn`, {}),
        await api.get(`/nfts/${heldItem}`),
      ]) {
        expectError(response, 401, 'Unauthorized', /Invalid api-key/);
      }
    });
  });

  describe('403 Forbidden', () => {
    it('transfer or burn of an item the managed wallet does not hold', async () => {
      const holder = (await user.api.get(`/nfts/${foreignItem}`)).body.data.owner;
      expect(holder).not.toBe(user.wallet);
      const before = await lastSignature(user.wallet);
      expectError(
        await user.api.post(`/nfts/${foreignItem}/transfer`, { recipient: user.wallet }),
        403,
        'Forbidden',
      );
      expectError(await user.api.post(`/nfts/${foreignItem}/burn`, {}), 403, 'Forbidden');
      expectError(
        await user.api.post(`/nfts/${collection}/burn`, { tokenId: foreignItem }),
        403,
        'Forbidden',
      );
      expect(await balanceOf(foreignItem, holder)).toBe(1n);
      expect(await lastSignature(user.wallet)).toBe(before);
    });
  });

  describe('404 Not found', () => {
    const unknown = randomAddress();

    it.each([
      ['an unknown mint', () => unknown],
      ['another account’s token', () => otherToken],
    ])('every token route with %s', async (_, address) => {
      const mint = address();
      expectError(await user.api.get(`/tokens/${mint}`), 404, 'Not found', /No token/);
      expectError(await user.api.post(`/tokens/${mint}/mint`, { amount: 1 }), 404, 'Not found');
      expectError(await user.api.post(`/tokens/${mint}/burn`, { amount: 1 }), 404, 'Not found');
      expectError(
        await user.api.post(`/tokens/${mint}/transfer`, { amount: 1, recipient: user.wallet }),
        404,
        'Not found',
      );
    });

    it.each([
      ['an unknown mint', () => unknown],
      ['another account’s collection', () => otherCollection],
      ['another account’s item', () => otherItem],
    ])('every NFT route with %s', async (_, address) => {
      const mint = address();
      expectError(await user.api.get(`/nfts/${mint}`), 404, 'Not found', /No NFT/);
      expectError(
        await user.api.post(`/nfts/${mint}/mint`, { name: 'x', images: [IMAGE] }),
        404,
        'Not found',
      );
      expectError(
        await user.api.post(`/nfts/${mint}/transfer`, {
          recipient: user.wallet,
          token_id: otherItem,
        }),
        404,
        'Not found',
      );
      expectError(
        await user.api.post(`/nfts/${mint}/burn`, { tokenId: otherItem }),
        404,
        'Not found',
      );
    });

    it('an item of another collection, or an unknown one, as token_id of an own collection', async () => {
      for (const tokenId of [otherItem, unknown]) {
        expectError(
          await user.api.get(`/nfts/${collection}?token_id=${tokenId}`),
          404,
          'Not found',
          /No item/,
        );
        expectError(
          await user.api.post(`/nfts/${collection}/transfer`, {
            recipient: randomAddress(),
            token_id: tokenId,
          }),
          404,
          'Not found',
        );
        expectError(await user.api.post(`/nfts/${collection}/burn`, { tokenId }), 404, 'Not found');
      }
      expect(await balanceOf(otherItem, other.wallet)).toBe(1n);
    });
  });

  describe('409 Conflict, with nothing changed on chain', () => {
    it('burn more than the balance', async () => {
      const supply = await supplyOf(token);
      const balance = await balanceOf(token, user.wallet);
      const before = await lastSignature(user.wallet);
      expectError(
        await user.api.post(`/tokens/${token}/burn`, { amount: '1000.000001' }),
        409,
        'Conflict',
        /Insufficient balance/,
      );
      expect(await supplyOf(token)).toBe(supply);
      expect(await balanceOf(token, user.wallet)).toBe(balance);
      expect(await lastSignature(user.wallet)).toBe(before);
    });

    it('transfer more than the balance', async () => {
      const balance = await balanceOf(token, user.wallet);
      const recipient = randomAddress();
      const before = await lastSignature(user.wallet);
      expectError(
        await user.api.post(`/tokens/${token}/transfer`, { recipient, amount: 5000 }),
        409,
        'Conflict',
        /Insufficient balance/,
      );
      expect(await balanceOf(token, user.wallet)).toBe(balance);
      expect(await connection.getAccountInfo(ataOf(token, recipient))).toBeNull();
      expect(await lastSignature(user.wallet)).toBe(before);
    });

    it('mint past max_supply', async () => {
      const before = await lastSignature(user.wallet);
      expectError(
        await user.api.post(`/nfts/${fullCollection}/mint`, {
          name: 'One too many',
          images: [IMAGE],
        }),
        409,
        'Conflict',
        /max supply/,
      );
      expect(getTokenGroupState(await mintAt(fullCollection))).toMatchObject({
        size: 1n,
        maxSize: 1n,
      });
      expect(await lastSignature(user.wallet)).toBe(before);
    });

    it('mints racing past max_supply: the chain’s group size decides, the rest are 409', async () => {
      const racing = (await createCollection(user, collectionBody({ max_supply: 2 }))).mint_address;
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          user.api.post(`/nfts/${racing}/mint`, { name: `Race ${i}`, images: [IMAGE] }),
        ),
      );
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, 200, 409, 409, 409]);
      for (const response of responses.filter((r) => r.status === 409)) {
        expectError(response, 409, 'Conflict', /max supply/);
      }
      expect(getTokenGroupState(await mintAt(racing))).toMatchObject({ size: 2n, maxSize: 2n });
      const items = await queryDatabase(
        stack.services.databaseUrl,
        `SELECT i.mint_address FROM nft_items i JOIN assets a ON a.id = i.collection_id
         WHERE a.address = $1`,
        [racing],
      );
      expect(items).toHaveLength(2);
    });

    it('burn or transfer of an already burned item', async () => {
      const before = await lastSignature(user.wallet);
      expectError(
        await user.api.post(`/nfts/${burnedItem}/burn`, {}),
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
      expect(await supplyOf(burnedItem)).toBe(0n);
      expect(await lastSignature(user.wallet)).toBe(before);
    });
  });
});
