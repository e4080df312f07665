import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { AppConfig, MasterKey, Pkcs11Settings, RateRule } from './app-config';
import {
  NETWORKS,
  PROFILES,
  familyOf,
  type ChainFamily,
  type ConcreteNetwork,
  type EvmNetwork,
  type Profile,
} from './networks';

type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/**
 * A development-only master key, used by the `local` profile when MASTER_KEYS is unset so that
 * `npm run local` works out of the box. Any other profile must be given its own keys.
 */
const LOCAL_DEV_MASTER_KEY = 'local-dev:' + Buffer.alloc(32, 7).toString('base64');

const LOCAL_DEFAULTS = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/asset_issuance',
  REDIS_URL: 'redis://127.0.0.1:6379',
  MASTER_KEYS: LOCAL_DEV_MASTER_KEY,
} as const;

/** Reads and validates the environment; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env): AppConfig {
  const profile = oneOf('APP_PROFILE', env.APP_PROFILE ?? 'local', PROFILES);
  const fallback = (name: keyof typeof LOCAL_DEFAULTS): string | undefined =>
    env[name] ?? (profile === 'local' ? LOCAL_DEFAULTS[name] : undefined);

  const keys = parseMasterKeys(required('MASTER_KEYS', fallback('MASTER_KEYS')));
  const activeKeyId = env.MASTER_KEY_ID ?? [...keys.keys()][0];
  const activeKey = keys.get(activeKeyId);
  if (!activeKey) throw new ConfigError('MASTER_KEY_ID', `names no key of MASTER_KEYS`);

  const defaultEvm = oneOf('DEFAULT_EVM_NETWORK', env.DEFAULT_EVM_NETWORK ?? 'base', NETWORKS);
  if (defaultEvm === 'evm' || defaultEvm === 'solana') {
    throw new ConfigError('DEFAULT_EVM_NETWORK', 'must name a concrete EVM network');
  }

  const rateLimit: RateRule = {
    requests: integer('RATE_LIMIT_REQUESTS', env.RATE_LIMIT_REQUESTS, 600, 1),
    windowSeconds: integer(
      'RATE_LIMIT_WINDOW_SECONDS',
      env.RATE_LIMIT_WINDOW_SECONDS,
      60,
      1,
      86_400,
    ),
  };

  return {
    profile,
    api: {
      host: env.API_HOST ?? '127.0.0.1',
      port: integer('API_PORT', env.API_PORT, 3000, 0, 65535),
      bodyLimitBytes: integer('BODY_LIMIT_BYTES', env.BODY_LIMIT_BYTES, 1024 * 1024, 1024),
      airdropBodyLimitBytes: integer(
        'AIRDROP_BODY_LIMIT_BYTES',
        env.AIRDROP_BODY_LIMIT_BYTES,
        8 * 1024 * 1024,
        1024,
      ),
      cookieSecure: boolean('COOKIE_SECURE', env.COOKIE_SECURE, profile !== 'local'),
      sessionTtlHours: integer('SESSION_TTL_HOURS', env.SESSION_TTL_HOURS, 24 * 7, 1),
      authKey: env.AUTH_KEY || undefined,
      trustProxy: trustProxy(env.TRUST_PROXY),
      shutdownDrainMs: integer(
        'SHUTDOWN_DRAIN_MS',
        env.SHUTDOWN_DRAIN_MS,
        profile === 'local' ? 500 : 5_000,
        0,
        600_000,
      ),
      ...httpTimeouts(env),
      chainReadCacheTtlMs: integer(
        'CHAIN_READ_CACHE_TTL_MS',
        env.CHAIN_READ_CACHE_TTL_MS,
        2_000,
        0,
        600_000,
      ),
    },
    admin: env.ADMIN_PASSWORD
      ? { user: env.ADMIN_USER || 'admin', password: env.ADMIN_PASSWORD }
      : undefined,
    databaseUrl: url('DATABASE_URL', required('DATABASE_URL', fallback('DATABASE_URL'))),
    databasePoolSize: integer('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE, 10, 1, 200),
    databasePreparedStatements: boolean(
      'DATABASE_PREPARED_STATEMENTS',
      env.DATABASE_PREPARED_STATEMENTS,
      true,
    ),
    databaseConnectTimeoutMs: integer(
      'DATABASE_CONNECT_TIMEOUT_MS',
      env.DATABASE_CONNECT_TIMEOUT_MS,
      5_000,
      100,
      600_000,
    ),
    ...redisTopology(env, fallback('REDIS_URL')),
    crypto: { activeKey, keys },
    signer: signer(env),
    chains: {
      defaultEvmNetwork: defaultEvm,
      rpcUrlOverrides: rpcOverrides(env),
      localEvmRpcUrls: urlList(
        'LOCAL_EVM_RPC_URL',
        env.LOCAL_EVM_RPC_URL ?? 'http://127.0.0.1:8545',
      ),
      localSolanaRpcUrls: urlList(
        'LOCAL_SOLANA_RPC_URL',
        env.LOCAL_SOLANA_RPC_URL ?? 'http://127.0.0.1:8899',
      ),
      localSolanaWsUrl: url(
        'LOCAL_SOLANA_WS_URL',
        env.LOCAL_SOLANA_WS_URL ?? 'ws://127.0.0.1:8900',
      ),
      fundManagedWallets: boolean(
        'FUND_MANAGED_WALLETS',
        env.FUND_MANAGED_WALLETS,
        profile === 'local',
      ),
      rpcTimeoutMs: integer('RPC_TIMEOUT_MS', env.RPC_TIMEOUT_MS, 10_000, 100),
      rpcFailoverCooldownMs: integer(
        'RPC_FAILOVER_COOLDOWN_MS',
        env.RPC_FAILOVER_COOLDOWN_MS,
        30_000,
        0,
      ),
    },
    operations: {
      syncWaitMs: integer('SYNC_WAIT_MS', env.SYNC_WAIT_MS, 30_000, 0),
      idempotencyTtlHours: integer('IDEMPOTENCY_TTL_HOURS', env.IDEMPOTENCY_TTL_HOURS, 24, 1),
      publicBaseUrl: url(
        'PUBLIC_BASE_URL',
        env.PUBLIC_BASE_URL ?? `http://${env.API_HOST ?? '127.0.0.1'}:${env.API_PORT ?? 3000}`,
      ).replace(/\/+$/, ''),
    },
    queue: {
      prefix: env.QUEUE_PREFIX || 'ais',
      redisTimeoutMs: integer('REDIS_TIMEOUT_MS', env.REDIS_TIMEOUT_MS, 1_000, 50, 60_000),
      shards: integer('QUEUE_SHARDS', env.QUEUE_SHARDS, 4, 1, 64),
      // A SIGKILLed worker's shards stand still this long: 5 s keeps a kill's gap under 10 s.
      // A worker whose event loop stalls longer loses its shards, which is safe (exactly-once
      // rests on stored bytes and conditional updates, not on the lease).
      leaseTtlMs: integer('LEASE_TTL_MS', env.LEASE_TTL_MS, 5_000, 300, 600_000),
    },
    worker: {
      networks: workerNetworks(env.WORKER_NETWORKS),
      concurrency: integer('WORKER_CONCURRENCY', env.WORKER_CONCURRENCY, 256, 1, 2000),
      adaptiveConcurrency: boolean(
        'WORKER_ADAPTIVE_CONCURRENCY',
        env.WORKER_ADAPTIVE_CONCURRENCY,
        false,
      ),
      minConcurrency: integer('WORKER_MIN_CONCURRENCY', env.WORKER_MIN_CONCURRENCY, 4, 1, 2000),
      jobLockMs: integer('JOB_LOCK_MS', env.JOB_LOCK_MS, 30_000, 500),
      reconcileIntervalMs: integer('RECONCILE_INTERVAL_MS', env.RECONCILE_INTERVAL_MS, 5_000, 100),
      reconcileAfterMs: integer('RECONCILE_AFTER_MS', env.RECONCILE_AFTER_MS, 30_000, 100),
      rebroadcastAfterMs: integer('REBROADCAST_AFTER_MS', env.REBROADCAST_AFTER_MS, 15_000, 100),
      operationDeadlineMs: integer(
        'OPERATION_DEADLINE_MS',
        env.OPERATION_DEADLINE_MS,
        600_000,
        100,
      ),
      metricsPort: env.WORKER_METRICS_PORT
        ? integer('WORKER_METRICS_PORT', env.WORKER_METRICS_PORT, 0, 1, 65535)
        : undefined,
      metricsHost: env.WORKER_METRICS_HOST ?? '127.0.0.1',
      faultInjection: faultInjection(profile, env.FAULT_INJECTION),
      replica: replicaName(env.WORKER_REPLICA),
    },
    scheduling: {
      weights: accountWeights(env.ACCOUNT_WEIGHTS),
      maxInFlight: integer('ACCOUNT_MAX_IN_FLIGHT', env.ACCOUNT_MAX_IN_FLIGHT, 128, 1, 100_000),
      overCapDelayMs: integer('ACCOUNT_OVER_CAP_DELAY_MS', env.ACCOUNT_OVER_CAP_DELAY_MS, 500, 10),
    },
    evm: {
      replaceAfterMs: integer('EVM_REPLACE_AFTER_MS', env.EVM_REPLACE_AFTER_MS, 30_000, 100),
      feeBumpPercent: integer('EVM_FEE_BUMP_PERCENT', env.EVM_FEE_BUMP_PERCENT, 15, 10, 1000),
      maxFeePerGas: perEvmNetwork(env, 'EVM_MAX_FEE_GWEI', DEFAULT_MAX_FEE_GWEI, gwei),
      confirmations: perEvmNetwork(env, 'EVM_CONFIRMATIONS', '1', (name, value) =>
        integer(name, value, 1, 1, MAX_CONFIRMATIONS),
      ),
      airdropBlockGasPercent: integer(
        'AIRDROP_BLOCK_GAS_PERCENT',
        env.AIRDROP_BLOCK_GAS_PERCENT,
        50,
        1,
        100,
      ),
    },
    solana: {
      commitment: oneOf('SOLANA_COMMITMENT', env.SOLANA_COMMITMENT ?? 'confirmed', [
        'processed',
        'confirmed',
        'finalized',
      ] as const),
      ...solanaPriorityFee(env),
      computeUnitMarginPercent: integer(
        'SOLANA_COMPUTE_UNIT_MARGIN_PERCENT',
        env.SOLANA_COMPUTE_UNIT_MARGIN_PERCENT,
        20,
        0,
        1000,
      ),
      computeUnitLimit: env.SOLANA_COMPUTE_UNIT_LIMIT
        ? integer('SOLANA_COMPUTE_UNIT_LIMIT', env.SOLANA_COMPUTE_UNIT_LIMIT, 0, 1, 1_400_000)
        : undefined,
      rebroadcastMs: integer('SOLANA_REBROADCAST_MS', env.SOLANA_REBROADCAST_MS, 2_000, 100),
    },
    rateLimit,
    limits: limits(env, rateLimit),
    eventStream: {
      heartbeatMs: integer('EVENT_STREAM_HEARTBEAT_MS', env.EVENT_STREAM_HEARTBEAT_MS, 15_000, 10),
      pollMs: integer('EVENT_STREAM_POLL_MS', env.EVENT_STREAM_POLL_MS, 5_000, 10),
      retryMs: integer('EVENT_STREAM_RETRY_MS', env.EVENT_STREAM_RETRY_MS, 3_000, 0, 3_600_000),
      maxPerAccount: integer(
        'EVENT_STREAMS_PER_ACCOUNT',
        env.EVENT_STREAMS_PER_ACCOUNT,
        10,
        1,
        10_000,
      ),
    },
    webhooks: webhooks(env),
    walletFunds: walletFunds(env),
    log: {
      level: oneOf('LOG_LEVEL', env.LOG_LEVEL ?? 'info', [
        'trace',
        'debug',
        'info',
        'warn',
        'error',
        'fatal',
      ] as const),
      redactPaths: redactPaths(env.LOG_REDACT_PATHS),
      requestHeaders: boolean('LOG_REQUEST_HEADERS', env.LOG_REQUEST_HEADERS, false),
    },
  };
}

function webhooks(env: Env): AppConfig['webhooks'] {
  const timeoutMs = integer('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 5_000, 100, 60_000);
  return {
    maxEndpointsPerAccount: integer(
      'WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT',
      env.WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT,
      20,
      1,
      1_000,
    ),
    timeoutMs,
    retryBaseMs: integer('WEBHOOK_RETRY_BASE_MS', env.WEBHOOK_RETRY_BASE_MS, 5_000, 10),
    retryMaxMs: integer('WEBHOOK_RETRY_MAX_MS', env.WEBHOOK_RETRY_MAX_MS, 3_600_000, 10),
    retryWindowMs: integer(
      'WEBHOOK_RETRY_WINDOW_MS',
      env.WEBHOOK_RETRY_WINDOW_MS,
      24 * 3_600_000,
      100,
    ),
    disableAfterMs: integer(
      'WEBHOOK_DISABLE_AFTER_MS',
      env.WEBHOOK_DISABLE_AFTER_MS,
      5 * 24 * 3_600_000,
      100,
    ),
    pauseAfterFailures: integer(
      'WEBHOOK_PAUSE_AFTER_FAILURES',
      env.WEBHOOK_PAUSE_AFTER_FAILURES,
      3,
      1,
      1_000,
    ),
    concurrency: integer('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 32, 1, 1_000),
    // Longer than a request, so a pump can always finish the delivery it started.
    leaseMs: integer('WEBHOOK_LEASE_MS', env.WEBHOOK_LEASE_MS, 30_000, 2 * timeoutMs + 1_000),
    sweepIntervalMs: integer(
      'WEBHOOK_SWEEP_INTERVAL_MS',
      env.WEBHOOK_SWEEP_INTERVAL_MS,
      1_000,
      50,
      600_000,
    ),
  };
}

function redisTopology(
  env: Env,
  fallbackUrl: string | undefined,
): Pick<AppConfig, 'redisUrl' | 'redisSentinel' | 'redisCluster' | 'redisAuth'> {
  const redisAuth = {
    ...(env.REDIS_USERNAME ? { username: env.REDIS_USERNAME } : {}),
    ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
  };
  if (env.REDIS_SENTINELS && env.REDIS_CLUSTER_NODES) {
    throw new ConfigError('REDIS_CLUSTER_NODES', 'cannot be set with REDIS_SENTINELS: choose one');
  }
  if (env.REDIS_CLUSTER_NODES) {
    const tls = /rediss:\/\//.test(env.REDIS_CLUSTER_NODES);
    const nodes = hostPorts(
      'REDIS_CLUSTER_NODES',
      env.REDIS_CLUSTER_NODES.replace(/rediss?:\/\//g, ''),
    );
    return { redisUrl: env.REDIS_URL ?? '', redisCluster: { nodes, tls }, redisAuth };
  }
  if (!env.REDIS_SENTINELS) {
    return { redisUrl: url('REDIS_URL', required('REDIS_URL', fallbackUrl)), redisAuth };
  }
  return {
    redisUrl: env.REDIS_URL ?? '',
    redisSentinel: {
      sentinels: hostPorts('REDIS_SENTINELS', env.REDIS_SENTINELS),
      name: required('REDIS_SENTINEL_NAME', env.REDIS_SENTINEL_NAME),
    },
    redisAuth,
  };
}

/** `host:port,...` */
function hostPorts(name: string, value: string): { host: string; port: number }[] {
  return value.split(',').map((node) => {
    const match = /^\s*([^\s:/]+):(\d{1,5})\s*$/.exec(node);
    if (!match) throw new ConfigError(name, `must be host:port,... (got "${node}")`);
    return { host: match[1], port: Number(match[2]) };
  });
}

function signer(env: Env): AppConfig['signer'] {
  const backend = oneOf('SIGNER_BACKEND', env.SIGNER_BACKEND ?? 'local', [
    'local',
    'pkcs11',
  ] as const);
  if (backend === 'local') return { backend };
  return { backend, pkcs11: pkcs11Settings(env) };
}

function pkcs11Settings(env: Env): Pkcs11Settings {
  if (env.PKCS11_PIN && env.PKCS11_PIN_FILE) {
    throw new ConfigError('PKCS11_PIN', 'and PKCS11_PIN_FILE are both set: give one');
  }
  let pin = env.PKCS11_PIN;
  if (env.PKCS11_PIN_FILE) {
    try {
      pin = readFileSync(env.PKCS11_PIN_FILE, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new ConfigError('PKCS11_PIN_FILE', `cannot be read: ${(error as Error).message}`);
    }
  }
  return {
    module: required('PKCS11_MODULE', env.PKCS11_MODULE),
    tokenLabel: required('PKCS11_TOKEN_LABEL', env.PKCS11_TOKEN_LABEL),
    pin: required('PKCS11_PIN (or PKCS11_PIN_FILE)', pin),
    sessions: integer('PKCS11_SESSIONS', env.PKCS11_SESSIONS, 4, 1, 256),
  };
}

function required(name: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new ConfigError(name, 'is required');
  return value;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

/**
 * The compute-unit price bounds. The default cap, 1,000,000 micro-lamports (1 lamport) per unit,
 * bounds what following the network can cost: about 0.0001 SOL on a 100k-unit transaction, some
 * twenty base fees, however wildly a few slots' bidding spikes; below it, the fee follows.
 */
function solanaPriorityFee(env: Env): {
  priorityFeeMicroLamports: number;
  priorityFeeMaxMicroLamports: number;
  priorityFeePercentile: number;
} {
  const floor = integer(
    'SOLANA_PRIORITY_FEE_MICROLAMPORTS',
    env.SOLANA_PRIORITY_FEE_MICROLAMPORTS,
    0,
    0,
  );
  const max = integer(
    'SOLANA_PRIORITY_FEE_MAX_MICROLAMPORTS',
    env.SOLANA_PRIORITY_FEE_MAX_MICROLAMPORTS,
    Math.max(1_000_000, floor),
    0,
  );
  if (max < floor) {
    throw new ConfigError(
      'SOLANA_PRIORITY_FEE_MAX_MICROLAMPORTS',
      `must be at least SOLANA_PRIORITY_FEE_MICROLAMPORTS (${floor}) (got "${max}")`,
    );
  }
  return {
    priorityFeeMicroLamports: floor,
    priorityFeeMaxMicroLamports: max,
    priorityFeePercentile: integer(
      'SOLANA_PRIORITY_FEE_PERCENTILE',
      env.SOLANA_PRIORITY_FEE_PERCENTILE,
      75,
      1,
      100,
    ),
  };
}

/**
 * How long a client may take to send a request's headers, and the whole request (body
 * included): a connection that says nothing or a body that never finishes is closed (408)
 * within seconds instead of holding a socket. Headers come first, so they get no longer.
 */
function httpTimeouts(env: Env): { headersTimeoutMs: number; requestTimeoutMs: number } {
  const requestTimeoutMs = integer(
    'HTTP_REQUEST_TIMEOUT_MS',
    env.HTTP_REQUEST_TIMEOUT_MS,
    20_000,
    100,
    600_000,
  );
  const headersTimeoutMs = integer(
    'HTTP_HEADERS_TIMEOUT_MS',
    env.HTTP_HEADERS_TIMEOUT_MS,
    Math.min(10_000, requestTimeoutMs),
    100,
    requestTimeoutMs,
  );
  return { headersTimeoutMs, requestTimeoutMs };
}

function integer(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(name, `must be an integer between ${min} and ${max} (got "${value}")`);
  }
  return parsed;
}

function boolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}

function url(name: string, value: string): string {
  try {
    new URL(value);
  } catch {
    throw new ConfigError(name, `must be a URL (got "${value}")`);
  }
  return value;
}

/**
 * One URL or several, comma-separated (a network's RPC endpoints, in order of preference). A
 * comma inside a URL must be percent-encoded (%2C).
 */
function urlList(name: string, value: string): string[] {
  const urls = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (urls.length === 0) throw new ConfigError(name, 'must name at least one URL');
  for (const entry of urls) url(name, entry);
  if (new Set(urls).size !== urls.length) throw new ConfigError(name, 'repeats a URL');
  return urls;
}

function parseMasterKeys(value: string): Map<string, MasterKey> {
  const keys = new Map<string, MasterKey>();
  for (const entry of value.split(',')) {
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator).trim();
    const key = Buffer.from(entry.slice(separator + 1).trim(), 'base64');
    if (separator < 1 || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32) {
      throw new ConfigError(
        'MASTER_KEYS',
        'must be a comma-separated list of <id>:<base64 of 32 bytes>',
      );
    }
    if (keys.has(id)) throw new ConfigError('MASTER_KEYS', `repeats the key id "${id}"`);
    keys.set(id, { id, key });
  }
  return keys;
}

/** A pino redact path: `a.b`, `a["x-y"]`, `a.*`, `a[*].b`. */
const REDACT_PATH = /^(?:[A-Za-z_$][\w$]*|\*)(?:\.(?:[A-Za-z_$][\w$]*|\*)|\["[^"\]]+"\]|\[\*\])*$/;

function redactPaths(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((path) => path.trim())
    .filter(Boolean)
    .map((path) => {
      if (!REDACT_PATH.test(path)) {
        throw new ConfigError(
          'LOG_REDACT_PATHS',
          `has "${path}", not a path like body.card or req.headers["x-token"]`,
        );
      }
      return path;
    });
}

/** `ACCOUNT_WEIGHTS=<account id>=<weight>,...`: integers from 1 to 1000. */
function accountWeights(value: string | undefined): Record<string, number> {
  const weights: Record<string, number> = {};
  for (const entry of (value ?? '').split(',').map((part) => part.trim())) {
    if (!entry) continue;
    const [accountId, weight, extra] = entry.split('=').map((part) => part.trim());
    if (!accountId || weight === undefined || extra !== undefined) {
      throw new ConfigError('ACCOUNT_WEIGHTS', `must list <account id>=<weight> (got "${entry}")`);
    }
    weights[accountId] = integer('ACCOUNT_WEIGHTS', weight, 1, 1, 1_000);
  }
  return weights;
}

function workerNetworks(value: string | undefined): ConcreteNetwork[] | 'all' {
  if (!value || value === 'all') return 'all';
  return value.split(',').map((name) => {
    const network = oneOf('WORKER_NETWORKS', name.trim(), NETWORKS);
    if (network === 'evm') throw new ConfigError('WORKER_NETWORKS', 'must name concrete networks');
    return network;
  });
}

function faultInjection(
  profile: Profile,
  value: string | undefined,
): AppConfig['worker']['faultInjection'] {
  if (!value) return undefined;
  if (profile !== 'local')
    throw new ConfigError('FAULT_INJECTION', 'is for the local profile only');
  return oneOf('FAULT_INJECTION', value, [
    'crash-after-sign',
    'crash-after-broadcast',
    'crash-after-pack',
    'crash-after-split',
  ] as const);
}

function rpcOverrides(env: Env): Partial<Record<ConcreteNetwork, string[]>> {
  const overrides: Partial<Record<ConcreteNetwork, string[]>> = {};
  for (const network of NETWORKS) {
    if (network === 'evm') continue;
    const name = `RPC_URL_${network.toUpperCase()}`;
    const value = env[name];
    if (value) overrides[network] = urlList(name, value);
  }
  return overrides;
}

/** Default ceiling of a transaction's fee per gas: far above normal, below a runaway spike. */
const DEFAULT_MAX_FEE_GWEI = '1000';

/**
 * Enough for any EVM chain: Ethereum finalizes within about 64 blocks, Polygon PoS once advised
 * 256.
 */
const MAX_CONFIRMATIONS = 1_000;

/** `<name>` for every EVM network, `<name>_<NETWORK>` for one. */
function perEvmNetwork<T>(
  env: Env,
  name: string,
  fallback: string,
  parse: (name: string, value: string) => T,
): Record<EvmNetwork, T> {
  const shared = parse(name, env[name] || fallback);
  const values = {} as Record<EvmNetwork, T>;
  for (const network of NETWORKS) {
    if (network === 'evm' || network === 'solana') continue;
    const own = `${name}_${network.toUpperCase()}`;
    const value = env[own];
    values[network] = value ? parse(own, value) : shared;
  }
  return values;
}

/** A decimal amount of gwei (up to 9 fractional digits) in wei. */
function gwei(name: string, value: string): bigint {
  const match = /^(\d{1,9})(?:\.(\d{1,9}))?$/.exec(value.trim());
  if (!match || /^0*(\.0*)?$/.test(value.trim())) {
    throw new ConfigError(name, `must be a positive number of gwei (got "${value}")`);
  }
  return BigInt(match[1]) * 10n ** 9n + BigInt((match[2] ?? '').padEnd(9, '0'));
}

/**
 * A managed wallet is announced low (`wallet.balance_low`) below its network's threshold,
 * `WALLET_LOW_BALANCE_<NETWORK>` in native units; 0 turns the announcement off. The defaults
 * are a few dozen typical operations: 0.1 SOL pays about 14 item mints (about 0.0072 SOL each,
 * mostly the rent of the new mint and token accounts); 0.01 of an EVM network's coin pays 50
 * NFT mints (200k gas) at 1 gwei, a handful on Ethereum itself, where deployments should raise it.
 */
const DEFAULT_LOW_BALANCE: Readonly<Record<ChainFamily, string>> = { evm: '0.01', solana: '0.1' };
const NATIVE_DECIMALS: Readonly<Record<ChainFamily, number>> = { evm: 18, solana: 9 };

function walletFunds(env: Env): AppConfig['walletFunds'] {
  const lowBalance = {} as Record<ConcreteNetwork, bigint>;
  for (const network of NETWORKS) {
    if (network === 'evm') continue;
    const name = `WALLET_LOW_BALANCE_${network.toUpperCase()}`;
    const family = familyOf(network);
    const value = env[name] || DEFAULT_LOW_BALANCE[family];
    lowBalance[network] = nativeAmount(name, value, NATIVE_DECIMALS[family]);
  }
  return {
    checkIntervalMs: integer(
      'WALLET_BALANCE_CHECK_MS',
      env.WALLET_BALANCE_CHECK_MS,
      15_000,
      50,
      3_600_000,
    ),
    lowBalance,
  };
}

/** A non-negative decimal amount of native currency, in base units (wei, lamports). */
function nativeAmount(name: string, value: string, decimals: number): bigint {
  const match = /^(\d{1,30})(?:\.(\d+))?$/.exec(value.trim());
  if (!match || (match[2] ?? '').length > decimals) {
    throw new ConfigError(
      name,
      `must be a non-negative amount with at most ${decimals} decimals (got "${value}")`,
    );
  }
  return (
    BigInt(match[1]) * 10n ** BigInt(decimals) + BigInt((match[2] ?? '').padEnd(decimals, '0'))
  );
}

/**
 * The throttles on what one client address or one account may do (docs/security.md, "Rate limits").
 * An account's keys together may write as much as one key may request, unless told otherwise,
 * so that deployments which raise RATE_LIMIT_REQUESTS (benchmarks, bulk jobs) raise both.
 */
function limits(env: Env, perKey: RateRule): AppConfig['limits'] {
  return {
    accountWrites: rateRule(
      'ACCOUNT_WRITE_LIMIT',
      env.ACCOUNT_WRITE_LIMIT,
      `${perKey.requests}/${perKey.windowSeconds}`,
    ),
    loginPerEmail: rateRule('LOGIN_LIMIT_PER_EMAIL', env.LOGIN_LIMIT_PER_EMAIL, '10/900'),
    loginPerIp: rateRule('LOGIN_LIMIT_PER_IP', env.LOGIN_LIMIT_PER_IP, '30/60'),
    registerPerEmail: rateRule('REGISTER_LIMIT_PER_EMAIL', env.REGISTER_LIMIT_PER_EMAIL, '5/3600'),
    registerPerIp: rateRule('REGISTER_LIMIT_PER_IP', env.REGISTER_LIMIT_PER_IP, '20/3600'),
    adminPerIp: rateRule('ADMIN_LIMIT_PER_IP', env.ADMIN_LIMIT_PER_IP, '10/900'),
    maxApiKeysPerAccount: integer(
      'MAX_API_KEYS_PER_ACCOUNT',
      env.MAX_API_KEYS_PER_ACCOUNT,
      10,
      1,
      10_000,
    ),
  };
}

/** `<requests>/<seconds>`, e.g. `10/900`: at most 10 in a window of 15 minutes. */
function rateRule(name: string, value: string | undefined, fallback: string): RateRule {
  const match = /^\s*(\d{1,16})\s*\/\s*(\d{1,5})\s*$/.exec(value || fallback);
  const requests = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (
    !match ||
    !Number.isSafeInteger(requests) ||
    requests < 1 ||
    windowSeconds < 1 ||
    windowSeconds > 86_400
  ) {
    throw new ConfigError(
      name,
      `must be <requests>/<seconds>, e.g. 10/900, with at least 1 request and a window of ` +
        `1 to 86400 seconds (got "${value}")`,
    );
  }
  return { requests, windowSeconds };
}

/**
 * Fastify's `trustProxy`: whom to believe about the client's address (X-Forwarded-For). Off by
 * default: a client could otherwise name any address and step around the per-address limits.
 * `true` trusts every hop, a number that many hops, else a list of proxy addresses or CIDRs.
 */
function trustProxy(value: string | undefined): AppConfig['api']['trustProxy'] {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return integer('TRUST_PROXY', value, 0, 1, 100);
  const proxies = value.split(',').map((entry) => entry.trim());
  for (const proxy of proxies) {
    const [address, bits, ...rest] = proxy.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    if (!family || rest.length > 0 || (bits !== undefined && !(Number(bits) <= maxBits))) {
      throw new ConfigError(
        'TRUST_PROXY',
        `must be true, false, a hop count or comma-separated proxy addresses/CIDRs (got "${value}")`,
      );
    }
  }
  return proxies;
}

export type { Profile };

/** A worker's replica name, as it goes into its lease ids (before `@`). */
function replicaName(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[A-Za-z0-9._-]{1,63}$/.test(value)) {
    throw new ConfigError(
      'WORKER_REPLICA',
      'must be 1 to 63 letters, digits, dots, dashes or underscores',
    );
  }
  return value;
}
