import { Connection, PublicKey } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, getTokenMetadata } from '@solana/spl-token';
import type { JsonRpcProvider } from 'ethers';
import { collectionAt, evmReader } from '@test/support/chain-reads';
import { expectConfirmedEnvelope, summary, type Data } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

/**
 * An item's own royalty (contract, "Amounts"): `seller_fee` on an item mint is that item's
 * royalty, ERC-2981 per token on EVM and `seller_fee_basis_points` in the item's Token-2022
 * metadata on Solana; without it the item has the collection's. Checked on chain by the test's
 * own reads, and in GET /nfts/{collection}?token_id=.
 */

const IMAGE = 'https://example.com/image.png';
const TX = { evm: /^0x[0-9a-f]{64}$/, solana: /^[1-9A-HJ-NP-Za-km-z]{86,88}$/ };

let stack: ServiceStack;
let api: HttpClient;
let wallets: Record<'evm' | 'solana', string>;

beforeAll(async () => {
  stack = await startServiceStack();
  const { api: client, account } = await newAccountClient(stack.http);
  api = client;
  const walletOf = (network: string) =>
    account.wallets.find((wallet) => wallet.network === network)!.public_key;
  wallets = { evm: walletOf('evm'), solana: walletOf('solana') };
});

afterAll(async () => {
  await stack?.stop();
});

async function write(path: string, body: Data, network: string, family: 'evm' | 'solana') {
  return expectConfirmedEnvelope(await api.post(path, body), network, TX[family]);
}

/** A collection with a 500 bps royalty. */
function createCollection(network: string, family: 'evm' | 'solana'): Promise<Data> {
  const body = {
    network,
    name: 'Royalties',
    symbol: 'ROY',
    description: 'Items with royalties of their own',
    images: [IMAGE],
    seller_fee: 500,
  };
  return write('/nfts', body, network, family);
}

function mintItem(collection: string, network: string, family: 'evm' | 'solana', extra: Data) {
  const body = { name: 'Item', images: [IMAGE], ...extra };
  return write(`/nfts/${collection}/mint`, body, network, family);
}

async function itemView(collection: string, tokenId: string): Promise<Data> {
  const response = await api.get(`/nfts/${collection}?token_id=${tokenId}`);
  expect(summary(response)).toMatchObject({ status: 200, body: { data: { type: 'item' } } });
  return response.body.data as Data;
}

describe('EVM: ERC-2981 royalty per token', () => {
  const network = 'base';
  let provider: JsonRpcProvider;
  let collection: string;

  beforeAll(async () => {
    provider = evmReader(stack.chains.evmRpcUrl);
    collection = (await createCollection(network, 'evm')).mint_address;
  });

  afterAll(() => provider?.destroy());

  const royaltyOnChain = async (tokenId: string) => [
    ...(await collectionAt(provider, collection).royaltyInfo(BigInt(tokenId), 10_000n)),
  ];

  it.each([
    ['its own seller_fee 250', { seller_fee: 250 }, 250],
    ['its own seller_fee "0" (no royalty, whatever the collection has)', { seller_fee: '0' }, 0],
    ["no seller_fee (the collection's 500)", {}, 500],
  ])('an item with %s', async (_, extra, bps) => {
    const item = await mintItem(collection, network, 'evm', extra);
    expect(await royaltyOnChain(item.token_id)).toEqual([wallets.evm, BigInt(bps)]);
    expect(await itemView(collection, item.token_id)).toMatchObject({ seller_fee: bps });
  });
});

describe('Solana: seller_fee_basis_points in the item mint’s metadata', () => {
  let connection: Connection;
  let collection: string;

  beforeAll(async () => {
    connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
    collection = (await createCollection('solana', 'solana')).mint_address;
  });

  const feeOnChain = async (mint: string) => {
    const metadata = await getTokenMetadata(
      connection,
      new PublicKey(mint),
      'confirmed',
      TOKEN_2022_PROGRAM_ID,
    );
    return metadata?.additionalMetadata;
  };

  it.each([
    ['its own seller_fee 250', { seller_fee: 250 }, 250],
    ["no seller_fee (the collection's 500)", {}, 500],
  ])('an item with %s', async (_, extra, bps) => {
    const item = await mintItem(collection, 'solana', 'solana', extra);
    expect(await feeOnChain(item.mint_address)).toEqual([['seller_fee_basis_points', String(bps)]]);
    expect(await itemView(collection, item.mint_address)).toMatchObject({ seller_fee: bps });
  });
});
