import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Contract, ContractFactory, Wallet, ZeroAddress, type JsonRpcProvider } from 'ethers';
import { batchItems, settledBatch } from '@test/support/airdrops';
import { evmReader, queryDatabase } from '@test/support/chain-reads';
import { setEvmBalance } from '@test/support/chain-control';
import { summary } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

const IMAGE = 'https://example.com/image.png';
/** AssetCollection as compiled before batch mints existed (no mintBatch, no items base URI). */
const PRE_BATCH = JSON.parse(
  readFileSync(join(__dirname, '../integration/fixtures/AssetCollection.pre-batch.json'), 'utf8'),
) as { abi: unknown[]; bytecode: string };

/**
 * A collection deployed before batch mints existed has no `mintBatch`: an airdrop to it still
 * lands every item exactly once, each in a transaction of its own with its own token URI.
 */
describe('an airdrop to a collection deployed before batch mints', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;
  let owner: string;
  let accountId: string;

  beforeAll(async () => {
    stack = await startServiceStack({ env: { RATE_LIMIT_REQUESTS: '100000' } });
    provider = evmReader(stack.chains.evmRpcUrl);
    const client = await newAccountClient(stack.http);
    api = client.api;
    owner = client.account.wallets.find((wallet) => wallet.network === 'evm')!.public_key;
    const [row] = await queryDatabase<{ account_id: string }>(
      stack.services.databaseUrl,
      'SELECT account_id FROM managed_wallets WHERE address = $1',
      [owner],
    );
    accountId = row.account_id;
  });

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  /** The old contract, owned by the managed wallet, recorded as the account's collection was. */
  async function legacyCollection(): Promise<Contract> {
    const deployer = Wallet.createRandom().connect(provider);
    await setEvmBalance(stack.chains.evmRpcUrl, deployer.address, 10n ** 20n);
    const factory = new ContractFactory(PRE_BATCH.abi as never[], PRE_BATCH.bytecode, deployer);
    const contract = await factory.deploy(
      'Legacy',
      'OLD',
      'ipfs://legacy',
      0,
      ZeroAddress,
      0,
      owner,
    );
    await contract.waitForDeployment();
    const address = await contract.getAddress();
    // Its rows as a collection created through the API before batch mints were written.
    const [reference] = await queryDatabase<{ chain_key: string }>(
      stack.services.databaseUrl,
      `SELECT chain_key FROM managed_wallets w JOIN operations o ON o.signer = w.address
       WHERE w.address = $1 AND o.network = 'base' LIMIT 1`,
      [owner],
    );
    const operationId = randomUUID();
    await queryDatabase(
      stack.services.databaseUrl,
      `WITH created AS (
         INSERT INTO operations (id, account_id, kind, network, chain_key, status, intent, details,
           signer, result, created_at, updated_at, settled_at)
         VALUES ($1, $2, 'nft.create', 'base', $3, 'confirmed', $4::jsonb, '{}', $5, $6::jsonb,
           now(), now(), now()))
       INSERT INTO assets (id, account_id, kind, network, chain_key, address, owner, name, symbol,
         decimals, details, operation_id, created_at)
       VALUES ($7, $2, 'collection', 'base', $3, $8, $5, 'Legacy', 'OLD', 0, '{}', $1, now())`,
      [
        operationId,
        accountId,
        reference.chain_key,
        JSON.stringify({
          kind: 'nft.create',
          name: 'Legacy',
          symbol: 'OLD',
          metadataUri: 'ipfs://legacy',
          maxSupply: '0',
          sellerFeeBps: 0,
        }),
        owner,
        JSON.stringify({ mintAddress: address }),
        randomUUID(),
        address,
      ],
    );
    return new Contract(address, PRE_BATCH.abi as never[], provider);
  }

  it('mints each item in a transaction of its own, once, with its own token URI', async () => {
    // A first write on base, so the account's chain key is known to copy.
    const token = await api.post('/tokens', { network: 'base', name: 'T', symbol: 'T', amount: 1 });
    expect(summary(token)).toMatchObject({ status: 200 });
    const collection = await legacyCollection();
    const to = Array.from({ length: 6 }, () => Wallet.createRandom().address);
    const response = await api.post(`/nfts/${await collection.getAddress()}/airdrop`, {
      items: to.map((recipient, i) => ({ recipient, name: `Old #${i}`, images: [IMAGE] })),
    });
    expect(summary(response)).toMatchObject({ status: 202 });
    const batch = await settledBatch(api, response.body.data.batch_id, 60_000);
    expect(batch).toMatchObject({ status: 'completed', counts: { confirmed: 6, failed: 0 } });

    const items = await batchItems(api, batch.batch_id);
    expect(new Set(items.map((item) => item.tx)).size).toBe(6);
    expect(await collection.getFunction('totalMinted').staticCall()).toBe(6n);
    for (const item of items) {
      expect(await collection.getFunction('ownerOf').staticCall(item.token_id)).toBe(
        to[item.index],
      );
      const uri = (await collection.getFunction('tokenURI').staticCall(item.token_id)) as string;
      const document = await stack.http.get(new URL(uri).pathname);
      expect(document.body).toMatchObject({ name: `Old #${item.index}` });
    }
  });
});
