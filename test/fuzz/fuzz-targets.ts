import { Keypair } from '@solana/web3.js';
import { Wallet } from 'ethers';
import { HttpClient } from '@test/support/http-client';
import { settledOperation, type Data } from '@test/support/envelope-assertions';
import type { FamilyTargets, FuzzTargets } from './fuzz-routes';

const PASSWORD = 'correct horse battery staple';
const IMAGE = 'https://example.com/image.png';

/**
 * The account the fuzz attacks from, with confirmed assets on both chain families (so that
 * requests on real mints get past the lookups), spare API keys and a spare session to revoke.
 * Needs a worker running; the fuzz itself does not.
 */
export async function prepareTargets(baseUrl: string, adminAuth: string): Promise<FuzzTargets> {
  const session = new HttpClient(baseUrl);
  const email = `fuzz-${Date.now()}@example.com`;
  const registered = await session.post('/account/register', { email, password: PASSWORD });
  if (registered.status !== 200) throw new Error(`register: ${JSON.stringify(registered.body)}`);
  const wallets = registered.body.data.wallets as { network: string; public_key: string }[];
  const newKey = async (): Promise<Data> => {
    const response = await session.post('/account/api-keys', { name: 'fuzz' });
    if (response.status !== 200) throw new Error(`api key: ${JSON.stringify(response.body)}`);
    return response.body.data as Data;
  };
  const [own, ...victims] = [await newKey(), await newKey(), await newKey(), await newKey()];
  const victimSession = new HttpClient(baseUrl);
  await victimSession.post('/account/login', { email, password: PASSWORD });
  const api = session.with({ 'api-key': own.key as string, prefer: 'respond-async' });

  const write = async (path: string, body: Record<string, unknown>): Promise<Data> => {
    const accepted = await api.post(path, body);
    if (accepted.status !== 202) throw new Error(`${path}: ${JSON.stringify(accepted.body)}`);
    const settled = await settledOperation(api, accepted.body.data.operation_id as string, 120_000);
    if (settled.status !== 'confirmed') throw new Error(`${path}: ${JSON.stringify(settled)}`);
    return settled;
  };
  const assets = async (network: string) => {
    const [token, collection] = await Promise.all([
      write('/tokens', { network, name: 'Fuzz Target', symbol: 'FZT', amount: 1_000_000 }),
      write('/nfts', {
        network,
        name: 'Fuzz Target',
        description: 'fuzz',
        images: [IMAGE],
        max_supply: 1_000,
      }),
    ]);
    const item = await write(`/nfts/${collection.mint_address as string}/mint`, {
      name: 'Target Item',
      images: [IMAGE],
    });
    return { token, collection, item };
  };
  const [solana, evm] = await Promise.all([assets('solana'), assets('base')]);
  const webhook = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hooks' });
  if (webhook.status !== 200) throw new Error(`webhook: ${JSON.stringify(webhook.body)}`);
  const walletOf = (solana: boolean) =>
    wallets.find((wallet) => (wallet.network === 'solana') === solana)!.public_key;
  const family = (
    network: string,
    found: typeof solana,
    stranger: string,
    byTokenId: boolean,
  ): FamilyTargets => ({
    network,
    wallet: walletOf(network === 'solana'),
    stranger,
    token: found.token.mint_address as string,
    collection: found.collection.mint_address as string,
    item: byTokenId
      ? (found.collection.mint_address as string)
      : (found.item.mint_address as string),
    itemTokenId: byTokenId ? String(found.item.token_id) : undefined,
  });
  const cookie = (client: HttpClient): string => {
    if (!client.sessionCookie) throw new Error('no session cookie');
    return client.sessionCookie;
  };
  return {
    apiKey: own.key as string,
    session: cookie(session),
    victimSession: cookie(victimSession),
    victimKeyIds: victims.map((key) => key.id as string),
    admin: adminAuth,
    webhookId: webhook.body.data.id as string,
    email,
    password: PASSWORD,
    operationId: solana.item.operation_id as string,
    metadataId: String(solana.collection.metadata_uri).split('/').pop()!,
    solana: family('solana', solana, Keypair.generate().publicKey.toBase58(), false),
    evm: family('base', evm, Wallet.createRandom().address, true),
  };
}
