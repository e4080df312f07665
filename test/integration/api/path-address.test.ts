import { Keypair } from '@solana/web3.js';
import { Wallet } from 'ethers';
import { startApiWithAccount } from '@test/support/api-app';
import { expectError, type Data } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';

jest.setTimeout(60_000);

/**
 * The address in a route's path against the network the request names (body or query): one of
 * the other chain family is 400, whatever the route, before anything is looked up (no chain is
 * needed here). Without a network an unknown address keeps its 404.
 */

type Family = 'evm' | 'solana';
const ADDRESS: Record<Family, string> = {
  evm: Wallet.createRandom().address,
  solana: Keypair.generate().publicKey.toBase58(),
};
/** A well-formed token id of each family (on Solana an item's mint address). */
const TOKEN_ID: Record<Family, string> = {
  evm: '1',
  solana: Keypair.generate().publicKey.toBase58(),
};
/** A network of each family, and how the message names the address it expects. */
const NETWORK: Record<Family, { name: string; expects: string }> = {
  evm: { name: 'base', expects: 'an EVM address' },
  solana: { name: 'solana', expects: 'a Solana address' },
};

interface Route {
  method: 'GET' | 'POST';
  path: (address: string) => string;
  field: string;
  /** A POST's body besides `network`, with a recipient and token id of the intended family. */
  body?: (recipient: string, tokenId: string) => Data;
  /** A GET's query besides `network`. */
  query?: (tokenId: string) => string;
  /** Without a network an address nobody issued is 404 (wallets answer any address). */
  unknownIs404: boolean;
}

const IMAGES = ['https://example.com/item.png'];

const ROUTES: Route[] = [
  ...(['mint', 'burn', 'transfer'] as const).map((action): Route => ({
    method: 'POST',
    path: (a) => `/tokens/${a}/${action}`,
    field: 'mint_address',
    body: (recipient) => ({ amount: 1, ...(action === 'transfer' ? { recipient } : {}) }),
    unknownIs404: true,
  })),
  { method: 'GET', path: (a) => `/tokens/${a}`, field: 'mint_address', unknownIs404: true },
  {
    method: 'POST',
    path: (a) => `/nfts/${a}/mint`,
    field: 'mint_address',
    body: () => ({ name: 'Item', images: IMAGES }),
    unknownIs404: true,
  },
  {
    method: 'POST',
    path: (a) => `/nfts/${a}/transfer`,
    field: 'mint_address',
    body: (recipient, tokenId) => ({ recipient, token_id: tokenId }),
    unknownIs404: true,
  },
  {
    method: 'POST',
    path: (a) => `/nfts/${a}/burn`,
    field: 'mint_address',
    body: (_, tokenId) => ({ tokenId }),
    unknownIs404: true,
  },
  { method: 'GET', path: (a) => `/nfts/${a}`, field: 'mint_address', unknownIs404: true },
  {
    method: 'GET',
    path: (a) => `/nfts/${a}`,
    field: 'mint_address',
    query: (tokenId) => `token_id=${tokenId}`,
    unknownIs404: true,
  },
  { method: 'GET', path: (a) => `/wallets/${a}`, field: 'wallet_address', unknownIs404: false },
];

const FAMILIES = ['evm', 'solana'] as const;
const otherThan = (family: Family): Family => (family === 'evm' ? 'solana' : 'evm');

/** The route's request for an address of `family`, naming `network` when given. */
function call(api: HttpClient, route: Route, family: Family, network?: Family) {
  const intended = network ?? family;
  const [recipient, tokenId] = [ADDRESS[intended], TOKEN_ID[intended]];
  const named = network && NETWORK[network].name;
  if (route.method === 'GET') {
    const params = [route.query?.(tokenId), named && `network=${named}`].filter(Boolean).join('&');
    return api.get(`${route.path(ADDRESS[family])}${params ? `?${params}` : ''}`);
  }
  const body = { ...route.body!(recipient, tokenId), ...(named ? { network: named } : {}) };
  return api.post(route.path(ADDRESS[family]), body);
}

const label = (route: Route, family: Family) =>
  `${route.method} ${route.path(`{${family}}`)}${route.query ? `?${route.query('{id}')}` : ''}`;

describe('a path address of the other chain family than the named network', () => {
  let api: HttpClient;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ api, stop } = await startApiWithAccount());
  });

  afterAll(async () => {
    await stop?.();
  });

  it.each(
    ROUTES.flatMap((route) =>
      FAMILIES.map(
        (family) => [label(route, family), NETWORK[otherThan(family)].name, route, family] as const,
      ),
    ),
  )('%s with network %s is 400', async (_, network, route, family) => {
    const response = await call(api, route, family, otherThan(family));
    const expected =
      `${route.field} ${ADDRESS[family]} is not ${NETWORK[otherThan(family)].expects} ` +
      `(network ${network}).`;
    expectError(response, 400, 'Bad request');
    expect(response.body.message).toBe(`Invalid request body. ${expected}`);
  });

  it.each(
    ROUTES.filter((route) => route.unknownIs404).flatMap((route) =>
      FAMILIES.map((family) => [label(route, family), route, family] as const),
    ),
  )('%s without a network is still 404 for an unknown address', async (_, route, family) => {
    expectError(await call(api, route, family), 404, 'Not found');
  });
});
