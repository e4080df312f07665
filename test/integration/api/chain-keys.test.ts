import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { NetworkRegistry } from '@app/chains';
import { AssetRepository, createDataSource } from '@app/database';
import { ChainKeyPinning, ExecutionModule, IssuanceModule } from '@app/domain';
import { insertAccountRow } from '@test/support/account-rows';
import { insertAssetRow } from '@test/support/asset-rows';
import { startApiInProcess } from '@test/support/api-app';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const DEVNET = {
  APP_PROFILE: 'devnet',
  MASTER_KEYS: `k:${Buffer.alloc(32, 7).toString('base64')}`,
  SESSION_COOKIE_SECURE: 'false',
};

/**
 * A public network moved to another RPC provider (RPC_URL_BASE changed) and the service started
 * again: what it stored of the chain is still the chain's. Assets, operations and the nonce
 * ledger are found by the chain's key, pinned on the first start (ChainKeyPinning), else the
 * network's tokens answered 404. The key is the chain's identity: an RPC URL, which often holds
 * a provider's API key, is not copied into every row (only where rows were stored under a key
 * made of it before keys were pinned).
 */
describe('a public network moved to another RPC provider', () => {
  let services: TestServices;
  let dataSource: DataSource;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  /** The chain key of `base` in an API started with this RPC URL for it. */
  async function baseKeyWith(rpcUrl: string): Promise<string> {
    const { app } = await startApiInProcess(services, { ...DEVNET, RPC_URL_BASE: rpcUrl });
    try {
      return app.get(NetworkRegistry).resolve('base').chainKey;
    } finally {
      await app.close();
    }
  }

  it('keeps the key of the first start, and with it the assets stored under it', async () => {
    const firstKey = await baseKeyWith('https://old-provider.example/v2/secret-api-key');
    expect(firstKey).toBe('evm:84532');
    const address = `0x${randomBytes(20).toString('hex')}`;
    const assetId = await insertToken(firstKey, address);

    const { app } = await startApiInProcess(services, {
      ...DEVNET,
      RPC_URL_BASE: 'https://new-provider.example/rpc',
    });
    try {
      const base = app.get(NetworkRegistry).resolve('base');
      expect(base).toMatchObject({
        rpcUrl: 'https://new-provider.example/rpc',
        chainKey: firstKey,
      });
      expect(await app.get(AssetRepository).findAsset(base.chainKey, address)).toMatchObject({
        id: assetId,
      });
      // Another chain of the profile has its own.
      expect(app.get(NetworkRegistry).resolve('polygon').chainKey).toBe('evm:80002');
      expect(app.get(NetworkRegistry).resolve('solana').chainKey).toBe('solana:devnet');
    } finally {
      await app.close();
    }
  });

  it('keeps a key made of the RPC URL where rows were stored under it before keys were pinned', async () => {
    // A deployment from before migration 1767700000000: nothing pinned, rows under the URL key.
    await dataSource.query(`DELETE FROM chain_keys`);
    const legacyKey = 'evm:84532:https://legacy-provider.example/rpc';
    const address = `0x${randomBytes(20).toString('hex')}`;
    const assetId = await insertToken(legacyKey, address);

    const { app } = await startApiInProcess(services, {
      ...DEVNET,
      RPC_URL_BASE: 'https://legacy-provider.example/rpc',
    });
    try {
      const base = app.get(NetworkRegistry).resolve('base');
      expect(base.chainKey).toBe(legacyKey);
      expect(await app.get(AssetRepository).findAsset(base.chainKey, address)).toMatchObject({
        id: assetId,
      });
      // A chain with nothing stored under its URL key takes its identity.
      expect(app.get(NetworkRegistry).resolve('polygon').chainKey).toBe('evm:80002');
    } finally {
      await app.close();
    }
    expect(await baseKeyWith('https://another-provider.example/rpc')).toBe(legacyKey);
  });

  it('gives processes starting at once with different URLs one key', async () => {
    const keys = await Promise.all([
      baseKeyWith('https://provider-a.example/rpc'),
      baseKeyWith('https://provider-b.example/rpc'),
    ]);
    expect(keys[0]).toBe(keys[1]);
  });

  it('is pinned by the worker as by the API', () => {
    for (const module of [IssuanceModule, ExecutionModule]) {
      expect(Reflect.getMetadata('providers', module)).toContain(ChainKeyPinning);
    }
  });

  async function insertToken(chainKey: string, address: string): Promise<string> {
    const accountId = await insertAccountRow(dataSource, 'moved');
    const token = await insertAssetRow(
      dataSource,
      { accountId, kind: 'token', chainKey, address },
      {
        kind: 'token.create',
        name: 'Moved',
        symbol: 'MOV',
        decimals: 6,
        initialSupply: '0',
        metadataUri: 'https://example.test/moved.json',
      },
    );
    return token.id;
  }
});
