import type { Rng } from './fuzz-random';
import type { FuzzValue } from './fuzz-values';

/** Real things of the fuzz accounts, so that requests also reach past the lookups. */
export interface FamilyTargets {
  network: string;
  wallet: string;
  /** A well-formed address nobody here owns: a recipient. */
  stranger: string;
  token: string;
  collection: string;
  /** Solana: the item's mint; EVM: the collection's contract (items are token ids). */
  item: string;
  itemTokenId?: string;
}

export interface FuzzTargets {
  apiKey: string;
  /** `ais_session=...` of the fuzz account. */
  session: string;
  /** A second session of the same account, the only one `POST /account/logout` may end. */
  victimSession: string;
  /** API keys `DELETE /account/api-keys/{id}` may revoke (never the fuzz's own). */
  victimKeyIds: string[];
  /** `Authorization` of the admin routes. */
  admin: string;
  /** A webhook endpoint of the fuzz account (to a loopback receiver that is never up). */
  webhookId: string;
  email: string;
  password: string;
  operationId: string;
  metadataId: string;
  solana: FamilyTargets;
  evm: FamilyTargets;
}

export type Auth = 'none' | 'api-key' | 'session' | 'victim-session' | 'admin';

/** Builds a valid request of a route for one chain family (params, query, body). */
export interface ValidShape {
  params: Record<string, string>;
  query?: { [name: string]: string | undefined };
  body?: Record<string, FuzzValue>;
}

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path with `:param` placeholders, as reported in the counts. */
  template: string;
  auth: Auth;
  /** How often it is picked, relative to 1 (login/register cost a scrypt each, so less). */
  weight?: number;
  /** A 2xx that is documented not to be the envelope (hosted documents, pages, metrics). */
  bareSuccess?: boolean;
  valid(targets: FuzzTargets, family: FamilyTargets, rng: Rng): ValidShape;
}

const URI = 'https://example.com/image.png';
const family = (t: FuzzTargets, name: 'solana' | 'evm'): FamilyTargets => t[name];
const other = (t: FuzzTargets, f: FamilyTargets): FamilyTargets =>
  f === t.solana ? t.evm : t.solana;
const networkOrNot = (rng: Rng, f: FamilyTargets): Record<string, FuzzValue> =>
  rng.chance(0.5) ? { network: f.network } : {};

/**
 * Every route of the API (apps/api controllers, admin routes, docs/api.md's table). A route
 * missing here is a route the fuzz never reaches: add new ones.
 */
export const ROUTES: readonly RouteSpec[] = [
  {
    method: 'POST',
    template: '/account/register',
    auth: 'none',
    weight: 0.6,
    // A handful of addresses only: most valid-looking registrations are duplicates (409), so the
    // run creates few accounts and spends few scrypts.
    valid: (_t, _f, rng) => ({
      params: {},
      body: {
        email: `fuzz-new-${rng.int(1, 4)}@example.com`,
        password: 'correct horse battery staple',
      },
    }),
  },
  {
    method: 'POST',
    template: '/account/login',
    auth: 'none',
    weight: 0.6,
    valid: (t, _f, rng) => ({
      params: {},
      body: { email: t.email, password: rng.chance(0.5) ? t.password : 'a wrong password!' },
    }),
  },
  {
    method: 'POST',
    template: '/account/logout',
    auth: 'victim-session',
    weight: 0.3,
    valid: () => ({ params: {} }),
  },
  { method: 'GET', template: '/account', auth: 'session', valid: () => ({ params: {} }) },
  {
    method: 'POST',
    template: '/account/api-keys',
    auth: 'session',
    weight: 0.5,
    valid: () => ({ params: {}, body: { name: 'fuzz' } }),
  },
  { method: 'GET', template: '/account/api-keys', auth: 'session', valid: () => ({ params: {} }) },
  {
    method: 'DELETE',
    template: '/account/api-keys/:id',
    auth: 'session',
    valid: (t, _f, rng) => ({ params: { id: rng.pick(t.victimKeyIds) } }),
  },
  {
    method: 'GET',
    template: '/account/wallets',
    auth: 'session',
    weight: 0.5,
    valid: () => ({ params: {} }),
  },
  {
    method: 'GET',
    template: '/account/operations',
    auth: 'session',
    valid: (_t, _f, rng) => ({
      params: {},
      query: rng.chance(0.5) ? { limit: String(rng.int(1, 50)) } : {},
    }),
  },
  {
    method: 'GET',
    template: '/account/operations/:operation_id',
    auth: 'api-key',
    valid: (t) => ({ params: { operation_id: t.operationId } }),
  },
  {
    method: 'GET',
    template: '/account/audit',
    auth: 'api-key',
    valid: (_t, _f, rng) => ({
      params: {},
      query: rng.chance(0.5) ? { limit: String(rng.int(1, 100)) } : {},
    }),
  },
  {
    method: 'GET',
    template: '/account/usage',
    auth: 'session',
    valid: (_t, f, rng) => ({
      params: {},
      query: {
        window: rng.pick([undefined, 'day', 'week']),
        network: rng.chance(0.5) ? f.network : undefined,
      },
    }),
  },
  {
    method: 'GET',
    template: '/account/assets',
    auth: 'api-key',
    valid: (_t, f, rng) => ({
      params: {},
      query: {
        kind: rng.pick([undefined, 'token', 'collection']),
        network: rng.chance(0.5) ? f.network : undefined,
      },
    }),
  },
  {
    method: 'GET',
    template: '/account/assets/:mint_address/items',
    auth: 'api-key',
    valid: (_t, f) => ({ params: { mint_address: f.collection } }),
  },
  {
    method: 'GET',
    template: '/networks',
    auth: 'none',
    weight: 0.3,
    valid: () => ({ params: {} }),
  },
  { method: 'GET', template: '/webhooks', auth: 'api-key', valid: () => ({ params: {} }) },
  {
    method: 'POST',
    template: '/webhooks',
    auth: 'api-key',
    weight: 0.3,
    // The fuzz runs on the local profile: a loopback receiver that is never up is a valid URL.
    valid: (_t, _f, rng) => ({
      params: {},
      body: {
        url: 'http://127.0.0.1:9/hooks',
        ...(rng.chance(0.5) ? { event_types: ['operation.confirmed'] } : {}),
      },
    }),
  },
  {
    method: 'GET',
    template: '/webhooks/:id',
    auth: 'api-key',
    valid: (t) => ({ params: { id: t.webhookId } }),
  },
  {
    method: 'PATCH',
    template: '/webhooks/:id',
    auth: 'api-key',
    valid: (t, _f, rng) => ({
      params: { id: t.webhookId },
      body: rng.pick<Record<string, FuzzValue>>([
        { url: 'http://127.0.0.1:9/hooks' },
        { description: 'fuzz', enabled: true },
        { event_types: ['operation.confirmed'] },
      ]),
    }),
  },
  {
    method: 'POST',
    template: '/webhooks/:id/replay',
    auth: 'api-key',
    weight: 0.5,
    valid: (t, _f, rng) => ({
      params: { id: t.webhookId },
      body: rng.pick<Record<string, FuzzValue>>([
        { from_sequence: 1 },
        { since: new Date(0).toISOString() },
      ]),
    }),
  },
  {
    method: 'GET',
    template: '/webhooks/:id/deliveries',
    auth: 'api-key',
    weight: 0.5,
    valid: (t) => ({ params: { id: t.webhookId } }),
  },
  {
    method: 'GET',
    template: '/events',
    auth: 'api-key',
    // GET /events/stream is left out: a valid request is answered with a stream that never ends.
    valid: (_t, _f, rng) => ({
      params: {},
      query: {
        after: rng.chance(0.5) ? String(rng.int(0, 50)) : undefined,
        limit: rng.chance(0.5) ? String(rng.int(1, 1000)) : undefined,
      },
    }),
  },
  {
    method: 'POST',
    template: '/wallets',
    auth: 'api-key',
    valid: (_t, f) => ({ params: {}, body: { network: f.network } }),
  },
  {
    method: 'GET',
    template: '/wallets/:wallet_address',
    auth: 'api-key',
    valid: (_t, f, rng) => ({
      params: { wallet_address: f.wallet },
      query: networkOrNot(rng, f) as Record<string, string>,
    }),
  },
  {
    method: 'POST',
    template: '/tokens',
    auth: 'api-key',
    weight: 2,
    valid: (_t, f, rng) => ({
      params: {},
      body: {
        network: f.network,
        name: 'Fuzz Token',
        symbol: 'FUZ',
        amount: rng.pick<FuzzValue>([1000, '1000.5', 1]),
        ...(rng.chance(0.5) ? { decimals: rng.int(0, 18) } : {}),
        ...(rng.chance(0.5)
          ? { description: 'fuzz', image: URI, website: URI, seller_fee: 100 }
          : {}),
      },
    }),
  },
  {
    method: 'POST',
    template: '/tokens/:mint_address/mint',
    auth: 'api-key',
    weight: 1.5,
    valid: (_t, f, rng) => ({
      params: { mint_address: f.token },
      body: {
        amount: '1',
        ...(rng.chance(0.5) ? { recipient: f.wallet } : {}),
        ...networkOrNot(rng, f),
      },
    }),
  },
  {
    method: 'POST',
    template: '/tokens/:mint_address/burn',
    auth: 'api-key',
    weight: 1.5,
    valid: (_t, f, rng) => ({
      params: { mint_address: f.token },
      body: { amount: '1', ...networkOrNot(rng, f) },
    }),
  },
  {
    method: 'POST',
    template: '/tokens/:mint_address/transfer',
    auth: 'api-key',
    weight: 1.5,
    valid: (_t, f, rng) => ({
      params: { mint_address: f.token },
      body: { recipient: f.stranger, amount: 1, ...networkOrNot(rng, f) },
    }),
  },
  {
    method: 'GET',
    template: '/tokens/:mint_address',
    auth: 'api-key',
    valid: (_t, f, rng) => ({
      params: { mint_address: f.token },
      query: networkOrNot(rng, f) as Record<string, string>,
    }),
  },
  {
    method: 'POST',
    template: '/nfts',
    auth: 'api-key',
    weight: 2,
    valid: (_t, f, rng) => ({
      params: {},
      body: {
        network: f.network,
        name: 'Fuzz Collection',
        description: 'fuzz',
        images: [URI],
        ...(rng.chance(0.5)
          ? { symbol: 'FZC', website: URI, seller_fee: 250, max_supply: 100 }
          : {}),
        ...(rng.chance(0.5)
          ? { attributes: [{ trait_type: 'kind', value: 'fuzz' }], uploadMetadata: true }
          : {}),
      },
    }),
  },
  {
    method: 'POST',
    template: '/nfts/:mint_address/mint',
    auth: 'api-key',
    weight: 2,
    valid: (_t, f, rng) => ({
      params: { mint_address: f.collection },
      body: {
        name: 'Fuzz Item',
        images: [URI],
        ...(rng.chance(0.5)
          ? { attributes: [{ trait_type: 'rank', value: 1 }], seller_fee: 50 }
          : {}),
        ...(rng.chance(0.3) ? { recipient: f.wallet } : {}),
        ...networkOrNot(rng, f),
      },
    }),
  },
  {
    method: 'POST',
    template: '/nfts/:mint_address/transfer',
    auth: 'api-key',
    weight: 1.5,
    valid: (_t, f) => ({
      params: { mint_address: f.item },
      body: {
        recipient: f.stranger,
        ...(f.itemTokenId ? { token_id: f.itemTokenId } : {}),
      },
    }),
  },
  {
    method: 'POST',
    template: '/nfts/:mint_address/burn',
    auth: 'api-key',
    weight: 1.5,
    valid: (_t, f, rng) => ({
      params: { mint_address: f.item },
      body: { ...(f.itemTokenId ? { tokenId: f.itemTokenId } : {}), ...networkOrNot(rng, f) },
    }),
  },
  {
    method: 'GET',
    template: '/nfts/:mint_address',
    auth: 'api-key',
    valid: (_t, f) => ({
      params: { mint_address: f.itemTokenId ? f.collection : f.item },
      query: f.itemTokenId ? { token_id: f.itemTokenId } : {},
    }),
  },
  {
    method: 'GET',
    template: '/operations/:operation_id',
    auth: 'api-key',
    valid: (t) => ({ params: { operation_id: t.operationId } }),
  },
  {
    method: 'GET',
    template: '/metadata/:id',
    auth: 'none',
    bareSuccess: true,
    valid: (t) => ({ params: { id: t.metadataId } }),
  },
  { method: 'GET', template: '/health', auth: 'none', weight: 0.5, valid: () => ({ params: {} }) },
  {
    method: 'GET',
    template: '/docs',
    auth: 'none',
    weight: 0.3,
    bareSuccess: true,
    valid: () => ({ params: {} }),
  },
  {
    method: 'GET',
    template: '/docs/json',
    auth: 'none',
    weight: 0.3,
    bareSuccess: true,
    valid: () => ({ params: {} }),
  },
  {
    method: 'GET',
    template: '/dashboard',
    auth: 'none',
    weight: 0.3,
    bareSuccess: true,
    valid: () => ({ params: {} }),
  },
  {
    method: 'GET',
    template: '/dashboard/:file',
    auth: 'none',
    weight: 0.5,
    bareSuccess: true,
    valid: (_t, _f, rng) => ({
      params: { file: rng.pick(['index.html', 'dashboard.css', 'dashboard.js']) },
    }),
  },
  {
    method: 'GET',
    template: '/admin/queues',
    auth: 'admin',
    weight: 0.3,
    bareSuccess: true,
    valid: () => ({ params: {} }),
  },
  {
    method: 'GET',
    template: '/admin/queues/api/queues',
    auth: 'admin',
    weight: 0.3,
    bareSuccess: true,
    valid: () => ({ params: {} }),
  },
  {
    method: 'GET',
    template: '/metrics',
    auth: 'admin',
    weight: 0.3,
    bareSuccess: true,
    valid: () => ({ params: {} }),
  },
];

/** The family a request is built for; routes without chain assets ignore it. */
export function pickFamily(targets: FuzzTargets, rng: Rng): FamilyTargets {
  return family(targets, rng.chance(0.5) ? 'solana' : 'evm');
}

export function otherFamily(targets: FuzzTargets, f: FamilyTargets): FamilyTargets {
  return other(targets, f);
}
