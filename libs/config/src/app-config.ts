import type { ConcreteNetwork, EvmNetwork, Profile } from './networks';

export interface MasterKey {
  id: string;
  key: Buffer;
}

/** The typed configuration object: the only view of the environment the rest of the code has. */
export interface AppConfig {
  profile: Profile;
  api: {
    host: string;
    port: number;
    bodyLimitBytes: number;
    cookieSecure: boolean;
    sessionTtlHours: number;
    /** When set, requests must carry a matching `auth-key` header (spec 5.4). */
    authKey?: string;
  };
  databaseUrl: string;
  redisUrl: string;
  crypto: {
    /** The key new secrets are encrypted under. */
    activeKey: MasterKey;
    /** Every key that may still decrypt stored secrets (rotation keeps old ones here). */
    keys: ReadonlyMap<string, MasterKey>;
  };
  chains: {
    defaultEvmNetwork: EvmNetwork;
    /** RPC URL overrides per network, from `RPC_URL_<NETWORK>` variables. */
    rpcUrlOverrides: Partial<Record<ConcreteNetwork, string>>;
    /** Local profile: the local anvil and Solana validator URLs. */
    localEvmRpcUrl: string;
    localSolanaRpcUrl: string;
    localSolanaWsUrl: string;
    /** Local profile: fund new managed wallets from the local chains. */
    fundManagedWallets: boolean;
    rpcTimeoutMs: number;
  };
  operations: {
    syncWaitMs: number;
  };
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}
