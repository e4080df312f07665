import { expectConfirmedEnvelope } from '@test/support/envelope-assertions';
import type { HttpClient, HttpResponse } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { expectRefusedUnstored } from '@test/support/unstored-refusal';

jest.setTimeout(180_000);

/**
 * Recipients where what is sent is lost for good (docs/api.md, "Recipients where assets are lost"): a program, a sysvar or
 * the zero address, and the asset's own mint or contract. Each is a 400 naming what the address
 * is, on every route that sends to a recipient, before anything is stored.
 */

const IMAGE = 'https://example.com/image.png';
const EVM_TX = /^0x[0-9a-f]{64}$/;
const SOLANA_TX = /^[1-9A-HJ-NP-Za-km-z]{86,88}$/;

let stack: ServiceStack;
let api: HttpClient;

beforeAll(async () => {
  stack = await startServiceStack({ env: { RATE_LIMIT_REQUESTS: '100000' } });
  api = (await newAccountClient(stack.http)).api;
});

afterAll(async () => {
  await stack?.stop();
});

/** A recipient and what the refusal must call it. */
type Sink = [kind: string, address: string, what: string];

function expectLost(send: () => Promise<HttpResponse>, [, address, what]: Sink): Promise<void> {
  return expectRefusedUnstored(
    stack.services.databaseUrl,
    send,
    new RegExp(
      `^Invalid request body\\. recipient ${address} is ${what}: assets sent there are lost\\.$`,
    ),
  );
}

/** The token routes that send to a recipient (mint, transfer) refuse the sink. */
async function tokenRoutesRefuse(assets: Assets, sink: Sink): Promise<void> {
  for (const verb of ['mint', 'transfer']) {
    await expectLost(
      () => api.post(`/tokens/${assets.token}/${verb}`, { amount: 1, recipient: sink[1] }),
      sink,
    );
  }
}

/**
 * The NFT routes that send to a recipient (mint, transfer) refuse the sink. `itemTransfer` is
 * where and how the network addresses its item: on Solana the item's own mint, on EVM the
 * collection with a `token_id`.
 */
async function nftRoutesRefuse(
  assets: Assets,
  sink: Sink,
  itemTransfer: { path: string; body: object },
): Promise<void> {
  await expectLost(
    () =>
      api.post(`/nfts/${assets.collection}/mint`, {
        name: 'Lost',
        images: [IMAGE],
        recipient: sink[1],
      }),
    sink,
  );
  await expectLost(
    () => api.post(itemTransfer.path, { ...itemTransfer.body, recipient: sink[1] }),
    sink,
  );
}

/** The assets of one network the routes send: a token, a collection and one item of it. */
interface Assets {
  token: string;
  collection: string;
  /** The item's mint on Solana, its token id on EVM. */
  item: string;
}

async function createAssets(network: string, tx: RegExp): Promise<Assets> {
  const [token, collection] = await Promise.all([
    api.post('/tokens', { network, name: 'Sink', symbol: 'SNK', amount: 1000 }),
    api.post('/nfts', { network, name: 'Sinks', description: 'Lost recipients', images: [IMAGE] }),
  ]);
  const collectionAddress = expectConfirmedEnvelope(collection, network, tx).mint_address;
  const item = await api.post(`/nfts/${collectionAddress}/mint`, { name: 'Item', images: [IMAGE] });
  return {
    token: expectConfirmedEnvelope(token, network, tx).mint_address,
    collection: collectionAddress,
    item: expectConfirmedEnvelope(item, network, tx).token_id,
  };
}

describe('on Solana', () => {
  let assets: Assets;
  beforeAll(async () => {
    assets = await createAssets('solana', SOLANA_TX);
  });

  const sinks: Sink[] = [
    ['the System program', '11111111111111111111111111111111', 'the System program'],
    [
      'the Token-2022 program',
      'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
      'the Token-2022 program',
    ],
    [
      'the Associated Token Account program',
      'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
      'the Associated Token Account program',
    ],
    ['a sysvar (Rent)', 'SysvarRent111111111111111111111111111111111', 'a sysvar'],
    ['a sysvar (Clock)', 'SysvarC1ock11111111111111111111111111111111', 'a sysvar'],
  ];

  describe.each(sinks)('refuses %s', (kind, address, what) => {
    const sink: Sink = [kind, address, what];
    it('on token mint and transfer', async () => {
      await tokenRoutesRefuse(assets, sink);
    });

    it('on NFT mint and transfer', async () => {
      await nftRoutesRefuse(assets, sink, { path: `/nfts/${assets.item}/transfer`, body: {} });
    });
  });

  it('refuses the token its own mint', async () => {
    await tokenRoutesRefuse(assets, ['own', assets.token, "the token's own mint"]);
  });

  it('refuses a new item its collection mint', async () => {
    await expectLost(
      () =>
        api.post(`/nfts/${assets.collection}/mint`, {
          name: 'Lost',
          images: [IMAGE],
          recipient: assets.collection,
        }),
      ['own', assets.collection, "the collection's own mint"],
    );
  });

  it('refuses an item its own mint and its collection mint, however it is addressed', async () => {
    for (const [recipient, what] of [
      [assets.item, "the item's own mint"],
      [assets.collection, "the collection's own mint"],
    ]) {
      const sink: Sink = ['own', recipient, what];
      await expectLost(() => api.post(`/nfts/${assets.item}/transfer`, { recipient }), sink);
      await expectLost(
        () => api.post(`/nfts/${assets.collection}/transfer`, { recipient, token_id: assets.item }),
        sink,
      );
    }
  });
});

describe('on EVM', () => {
  let assets: Assets;
  beforeAll(async () => {
    assets = await createAssets('base', EVM_TX);
  });

  const evmItemTransfer = () => ({
    path: `/nfts/${assets.collection}/transfer`,
    body: { token_id: assets.item },
  });

  const zero: Sink = ['zero', '0x' + '0'.repeat(40), 'the zero address'];
  const precompile: Sink = [
    'precompile',
    '0x0000000000000000000000000000000000000001',
    'a precompile \\(reserved\\) address',
  ];

  it.each([zero, precompile])(
    'refuses the %s address on every route',
    async (kind, address, what) => {
      const sink: Sink = [kind, address, what];
      await tokenRoutesRefuse(assets, sink);
      await nftRoutesRefuse(assets, sink, evmItemTransfer());
    },
  );

  it('refuses the token its own contract', async () => {
    await tokenRoutesRefuse(assets, ['own', assets.token, "the token's own contract"]);
  });

  it('refuses an item its collection contract, on mint and on transfer', async () => {
    await nftRoutesRefuse(
      assets,
      ['own', assets.collection, "the collection's own contract"],
      evmItemTransfer(),
    );
  });

  it('knows its own contract in any letter case', async () => {
    const sink: Sink = ['own', assets.collection, "the collection's own contract"];
    await expectLost(
      () =>
        api.post(`/nfts/${assets.collection}/transfer`, {
          recipient: assets.collection.toLowerCase(),
          token_id: assets.item,
        }),
      sink,
    );
  });
});
