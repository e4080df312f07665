import { EVM_NETWORK_NAMES, NETWORKS, loadConfig } from '@app/config';
import { NetworkRegistry } from './network-registry';

describe('NetworkRegistry', () => {
  /** A registry under a public profile (which asks for keys and URLs a local one does not). */
  const publicRegistry = (profile: string, env: Record<string, string> = {}) =>
    new NetworkRegistry(
      loadConfig({
        APP_PROFILE: profile,
        MASTER_KEYS: `k:${Buffer.alloc(32).toString('base64')}`,
        DATABASE_URL: 'postgres://localhost/x',
        REDIS_URL: 'redis://localhost',
        ...env,
      }),
    );

  it('resolves every name under every profile, with evm as the configured default', () => {
    for (const profile of ['local', 'devnet', 'mainnet']) {
      const registry = new NetworkRegistry(
        loadConfig({
          APP_PROFILE: profile,
          MASTER_KEYS: `k:${Buffer.alloc(32).toString('base64')}`,
          DATABASE_URL: 'postgres://localhost/x',
          REDIS_URL: 'redis://localhost',
          DEFAULT_EVM_NETWORK: 'polygon',
        }),
      );
      for (const network of NETWORKS) expect(registry.resolve(network)).toBeDefined();
      expect(registry.resolve('evm').network).toBe('polygon');
      // One definition a concrete network: each row of the table, and Solana.
      expect(registry.all().map((definition) => definition.network)).toEqual([
        'solana',
        ...EVM_NETWORK_NAMES,
      ]);
    }
  });

  it('maps every EVM network to the local anvil and solana to the local validator', () => {
    const registry = new NetworkRegistry(
      loadConfig({ LOCAL_EVM_RPC_URL: 'http://127.0.0.1:9545' }),
    );
    const evm = registry.all().filter((definition) => definition.family === 'evm');
    expect(evm).toHaveLength(EVM_NETWORK_NAMES.length);
    expect(new Set(evm.map((definition) => definition.chainKey)).size).toBe(1);
    expect(evm[0]).toMatchObject({ chainId: 31337, rpcUrl: 'http://127.0.0.1:9545' });
    expect(registry.resolve('solana')).toMatchObject({
      family: 'solana',
      rpcUrl: 'http://127.0.0.1:8899',
      wsUrl: 'ws://127.0.0.1:8900',
    });
  });

  it('uses public test networks under devnet and honours RPC overrides', () => {
    const registry = new NetworkRegistry(
      loadConfig({
        APP_PROFILE: 'devnet',
        MASTER_KEYS: `k:${Buffer.alloc(32).toString('base64')}`,
        DATABASE_URL: 'postgres://localhost/x',
        REDIS_URL: 'redis://localhost',
        RPC_URL_BASE: 'https://base-sepolia.example/rpc',
      }),
    );
    expect(registry.resolve('base')).toMatchObject({
      chainId: 84532,
      rpcUrl: 'https://base-sepolia.example/rpc',
    });
    expect(registry.resolve('bsc')).toMatchObject({ chainId: 97, feeModel: 'legacy' });
    expect(registry.resolve('solana').rpcUrl).toBe('https://api.devnet.solana.com');
  });

  it('keeps every RPC URL of a list and keys the chain by the first only', () => {
    const single = new NetworkRegistry(loadConfig({ LOCAL_EVM_RPC_URL: 'http://127.0.0.1:9545' }));
    const listed = new NetworkRegistry(
      loadConfig({
        LOCAL_EVM_RPC_URL: 'http://127.0.0.1:9545,http://127.0.0.1:9546',
        LOCAL_SOLANA_RPC_URL: 'http://127.0.0.1:8899,http://127.0.0.1:7899',
      }),
    );
    expect(listed.resolve('base')).toMatchObject({
      rpcUrl: 'http://127.0.0.1:9545',
      rpcUrls: ['http://127.0.0.1:9545', 'http://127.0.0.1:9546'],
      // The nonce ledger's key: the same as with the first URL alone.
      chainKey: single.resolve('base').chainKey,
    });
    expect(listed.resolve('solana')).toMatchObject({
      rpcUrls: ['http://127.0.0.1:8899', 'http://127.0.0.1:7899'],
      chainKey: single.resolve('solana').chainKey,
    });
  });

  describe('chain keys to pin', () => {
    it('names each public chain by its chain id or cluster, and no local chain', () => {
      const registry = publicRegistry('devnet', {
        RPC_URL_BASE: 'https://base-sepolia.example/rpc',
      });
      const keys = registry.chainKeysToPin();
      expect(keys.get('evm:84532')).toBe('evm:84532:https://base-sepolia.example/rpc');
      expect(keys.get('solana:devnet')).toBe('solana:https://api.devnet.solana.com');
      // One entry a chain (networks on one chain id share it), and Solana.
      const chainIds = new Set(
        registry
          .all()
          .flatMap((definition) => (definition.family === 'evm' ? [definition.chainId] : [])),
      );
      expect(keys.size).toBe(chainIds.size + 1);
      expect(publicRegistry('local').chainKeysToPin().size).toBe(0);
    });

    it('takes the pinned key in place of the one made of a changed URL, and only for its chain', () => {
      const registry = publicRegistry('mainnet', { RPC_URL_BASE: 'https://new-provider.example' });
      const base = registry.resolve('base');
      const polygonKey = registry.resolve('polygon').chainKey;
      registry.pinChainKeys(
        new Map([
          ['evm:8453', 'evm:8453:https://old-provider.example'],
          ['evm:84532', 'evm:84532:https://a-testnet.example'],
        ]),
      );
      // The definition already held (by an adapter, a locator) sees it too.
      expect(base.chainKey).toBe('evm:8453:https://old-provider.example');
      expect(registry.resolve('base').chainKey).toBe('evm:8453:https://old-provider.example');
      expect(registry.resolve('polygon').chainKey).toBe(polygonKey);
    });

    it('leaves local chains keyed by their endpoint, whatever is pinned', () => {
      const registry = new NetworkRegistry(
        loadConfig({ LOCAL_EVM_RPC_URL: 'http://127.0.0.1:9545' }),
      );
      registry.pinChainKeys(new Map([['evm:31337', 'evm:31337:http://127.0.0.1:1']]));
      expect(registry.resolve('base').chainKey).toBe('evm:31337:http://127.0.0.1:9545');
    });
  });

  it("knows each public network's explorer, and none for local chains", () => {
    expect(publicRegistry('mainnet').resolve('base').explorer).toEqual({
      baseUrl: 'https://basescan.org',
      query: '',
    });
    expect(publicRegistry('devnet').resolve('base').explorer?.baseUrl).toBe(
      'https://sepolia.basescan.org',
    );
    expect(publicRegistry('devnet').resolve('solana').explorer).toEqual({
      baseUrl: 'https://explorer.solana.com',
      query: '?cluster=devnet',
    });
    for (const definition of publicRegistry('mainnet').all()) {
      expect(definition.explorer?.baseUrl).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]+$/);
    }
    expect(
      publicRegistry('local')
        .all()
        .every((definition) => definition.explorer === null),
    ).toBe(true);
  });
});
