import { Inject, Injectable } from '@nestjs/common';
import {
  APP_CONFIG,
  EVM_NETWORKS,
  LOCAL_EVM_CHAIN_ID,
  NETWORKS,
  SOLANA_EXPLORERS,
  SOLANA_RPC_URLS,
  type AppConfig,
  type ConcreteNetwork,
  type Network,
  type Profile,
} from '@app/config';
import type { NetworkDefinition } from './network-definition';

/** Resolves every network name of the spec to its chain, under the configured profile. */
@Injectable()
export class NetworkRegistry {
  private readonly definitions: ReadonlyMap<ConcreteNetwork, NetworkDefinition>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.definitions = buildDefinitions(config);
  }

  /** `evm` resolves to the deployment's default EVM network. */
  resolve(network: Network): NetworkDefinition {
    const concrete = network === 'evm' ? this.config.chains.defaultEvmNetwork : network;
    const definition = this.definitions.get(concrete);
    if (!definition) throw new Error(`No definition for network ${concrete}`);
    return definition;
  }

  all(): NetworkDefinition[] {
    return [...this.definitions.values()];
  }

  /**
   * Each public chain's identity with the key made of today's first RPC URL, which its networks
   * have until pinChainKeys: the key of rows stored before keys were pinned
   * (ChainKeyRepository.pin pins the identity itself where there are none). None under the local
   * profile: its chains are told apart by their endpoint, every local EVM chain having chain id
   * 31337.
   */
  chainKeysToPin(): Map<string, string> {
    const keys = new Map<string, string>();
    for (const definition of this.definitions.values()) {
      const identity = chainIdentityOf(definition, this.config.profile);
      if (identity && !keys.has(identity)) keys.set(identity, definition.chainKey);
    }
    return keys;
  }

  /**
   * The keys pinned for these identities replace those made of today's RPC URLs, in place
   * (whoever holds a definition sees it): a network whose provider changed keeps its assets,
   * operations and nonces.
   */
  pinChainKeys(pinned: ReadonlyMap<string, string>): void {
    for (const definition of this.definitions.values()) {
      const identity = chainIdentityOf(definition, this.config.profile);
      const key = identity ? pinned.get(identity) : undefined;
      if (key) definition.chainKey = key;
    }
  }
}

/**
 * What a public chain is, whatever endpoint serves it: `evm:<chain id>`, or `solana:<profile>`
 * (the profile's cluster). Null under the local profile.
 */
function chainIdentityOf(definition: NetworkDefinition, profile: Profile): string | null {
  if (profile === 'local') return null;
  return definition.family === 'evm' ? `evm:${definition.chainId}` : `solana:${profile}`;
}

export function buildDefinitions(config: AppConfig): Map<ConcreteNetwork, NetworkDefinition> {
  const { profile, chains } = config;
  const definitions = new Map<ConcreteNetwork, NetworkDefinition>();
  for (const network of NETWORKS) {
    if (network === 'evm') continue;
    const override = chains.rpcUrlOverrides[network];
    if (network === 'solana') {
      const rpcUrls =
        override ?? (profile === 'local' ? chains.localSolanaRpcUrls : [SOLANA_RPC_URLS[profile]]);
      const rpcUrl = rpcUrls[0];
      definitions.set(network, {
        network,
        family: 'solana',
        rpcUrl,
        rpcUrls,
        wsUrl: profile === 'local' && !override ? chains.localSolanaWsUrl : undefined,
        currency: { symbol: 'SOL', decimals: 9 },
        chainKey: `solana:${rpcUrl}`,
        explorer: profile === 'local' ? null : SOLANA_EXPLORERS[profile],
      });
      continue;
    }
    const facts = EVM_NETWORKS[network];
    const endpoint =
      profile === 'local'
        ? { chainId: LOCAL_EVM_CHAIN_ID, rpcUrls: chains.localEvmRpcUrls }
        : { chainId: facts[profile].chainId, rpcUrls: [facts[profile].rpcUrl] };
    const rpcUrls = override ?? endpoint.rpcUrls;
    const rpcUrl = rpcUrls[0];
    definitions.set(network, {
      network,
      family: 'evm',
      chainId: endpoint.chainId,
      rpcUrl,
      rpcUrls,
      feeModel: facts.feeModel,
      currency: { symbol: facts.currency, decimals: 18 },
      chainKey: `evm:${endpoint.chainId}:${rpcUrl}`,
      explorer: profile === 'local' ? null : { baseUrl: facts[profile].explorerUrl, query: '' },
    });
  }
  return definitions;
}
