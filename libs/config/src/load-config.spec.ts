import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './load-config';

const KEY = Buffer.alloc(32, 1).toString('base64');
const OTHER = Buffer.alloc(32, 2).toString('base64');
const DEVNET = {
  APP_PROFILE: 'devnet',
  MASTER_KEYS: `k1:${KEY}`,
  DATABASE_URL: 'postgres://db.internal/ais',
  REDIS_URL: 'redis://redis.internal:6379',
};

describe('loadConfig', () => {
  it('boots the local profile with no environment at all', () => {
    const config = loadConfig({});
    expect(config.profile).toBe('local');
    expect(config.api.port).toBe(3000);
    expect(config.api.bodyLimitBytes).toBe(1024 * 1024);
    expect(config.chains.defaultEvmNetwork).toBe('base');
    expect(config.chains.fundManagedWallets).toBe(true);
    expect(config.operations.syncWaitMs).toBe(30_000);
    expect(config.api.shutdownDrainMs).toBe(500);
    expect(loadConfig(DEVNET).api.shutdownDrainMs).toBe(5_000);
  });

  it('reads the confirmations an EVM receipt needs, for every network and for one', () => {
    expect(loadConfig({}).evm.confirmations.ethereum).toBe(1);
    const { confirmations } = loadConfig({
      EVM_CONFIRMATIONS: '3',
      EVM_CONFIRMATIONS_POLYGON: '32',
    }).evm;
    expect(confirmations).toMatchObject({ ethereum: 3, base: 3, polygon: 32 });
    expect(() => loadConfig({ EVM_CONFIRMATIONS_BASE: '0' })).toThrow(
      /EVM_CONFIRMATIONS_BASE must be an integer between 1 and 1000/,
    );
  });

  it('reads the low-balance thresholds in native units, per network, with per-family defaults', () => {
    const defaults = loadConfig({}).walletFunds;
    expect(defaults.checkIntervalMs).toBe(15_000);
    expect(defaults.lowBalance.solana).toBe(100_000_000n);
    expect(defaults.lowBalance.base).toBe(10n ** 16n);
    expect(defaults.lowBalance.polygon).toBe(10n ** 16n);

    const { walletFunds } = loadConfig({
      WALLET_BALANCE_CHECK_MS: '200',
      WALLET_LOW_BALANCE_SOLANA: '2.5',
      WALLET_LOW_BALANCE_BASE: '0.000000000000000001',
      WALLET_LOW_BALANCE_POLYGON: '0',
    });
    expect(walletFunds.checkIntervalMs).toBe(200);
    expect(walletFunds.lowBalance).toMatchObject({
      solana: 2_500_000_000n,
      base: 1n,
      polygon: 0n,
      ethereum: 10n ** 16n,
    });
  });

  it('refuses a threshold that is not a non-negative amount its currency can hold', () => {
    for (const bad of ['-1', '1e3', 'abc', '1.', '.5', '0.0000000001']) {
      expect(() => loadConfig({ WALLET_LOW_BALANCE_SOLANA: bad })).toThrow(
        new RegExp(
          `WALLET_LOW_BALANCE_SOLANA must be a non-negative amount with at most 9 decimals`,
        ),
      );
    }
    expect(
      loadConfig({ WALLET_LOW_BALANCE_BASE: '0.0000000001' }).walletFunds.lowBalance.base,
    ).toBe(10n ** 8n);
    expect(() => loadConfig({ WALLET_BALANCE_CHECK_MS: '10' })).toThrow(/WALLET_BALANCE_CHECK_MS/);
  });

  it('reads the event stream settings, with defaults', () => {
    expect(loadConfig({}).eventStream).toEqual({
      heartbeatMs: 15_000,
      pollMs: 5_000,
      retryMs: 3_000,
      maxPerAccount: 10,
    });
    expect(
      loadConfig({
        EVENT_STREAM_HEARTBEAT_MS: '200',
        EVENT_STREAM_POLL_MS: '1000',
        EVENT_STREAM_RETRY_MS: '0',
        EVENT_STREAMS_PER_ACCOUNT: '2',
      }).eventStream,
    ).toEqual({ heartbeatMs: 200, pollMs: 1_000, retryMs: 0, maxPerAccount: 2 });
    expect(() => loadConfig({ EVENT_STREAMS_PER_ACCOUNT: '0' })).toThrow(
      /EVENT_STREAMS_PER_ACCOUNT must be an integer between 1 and/,
    );
    expect(() => loadConfig({ EVENT_STREAM_HEARTBEAT_MS: 'often' })).toThrow(
      /EVENT_STREAM_HEARTBEAT_MS/,
    );
  });

  it('requires a database, Redis and master keys outside the local profile', () => {
    expect(() => loadConfig({ APP_PROFILE: 'mainnet' })).toThrow(/MASTER_KEYS is required/);
    expect(() => loadConfig({ APP_PROFILE: 'devnet', MASTER_KEYS: `k1:${KEY}` })).toThrow(
      /DATABASE_URL is required/,
    );
  });

  it('names the bad variable', () => {
    expect(() => loadConfig({ API_PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ API_PORT: 'eighty' })).toThrow(/API_PORT must be an integer/);
    expect(() => loadConfig({ APP_PROFILE: 'prod' })).toThrow(/APP_PROFILE must be one of/);
    expect(() => loadConfig({ DEFAULT_EVM_NETWORK: 'solana' })).toThrow(/DEFAULT_EVM_NETWORK/);
    expect(() => loadConfig({ RPC_URL_BASE: 'not a url' })).toThrow(/RPC_URL_BASE must be a URL/);
    expect(() => loadConfig({ MASTER_KEYS: 'k1:short' })).toThrow(/MASTER_KEYS must be/);
  });

  it('keeps every master key for decryption and encrypts under the chosen one', () => {
    const config = loadConfig({ MASTER_KEYS: `old:${KEY},new:${OTHER}`, MASTER_KEY_ID: 'new' });
    expect(config.crypto.activeKey.id).toBe('new');
    expect([...config.crypto.keys.keys()]).toEqual(['old', 'new']);
    expect(() => loadConfig({ MASTER_KEYS: `old:${KEY}`, MASTER_KEY_ID: 'gone' })).toThrow(
      /MASTER_KEY_ID/,
    );
    expect(() => loadConfig({ MASTER_KEYS: `a:${KEY},a:${OTHER}` })).toThrow(/repeats/);
  });

  it('reads the operation deadline, ten minutes by default', () => {
    expect(loadConfig({}).worker.operationDeadlineMs).toBe(600_000);
    expect(loadConfig({ OPERATION_DEADLINE_MS: '3000' }).worker.operationDeadlineMs).toBe(3_000);
    expect(() => loadConfig({ OPERATION_DEADLINE_MS: 'soon' })).toThrow(/OPERATION_DEADLINE_MS/);
  });

  it('reads the scheduling settings: equal weights and 128 operations in flight by default', () => {
    expect(loadConfig({}).scheduling).toEqual({
      weights: {},
      maxInFlight: 128,
      overCapDelayMs: 500,
    });
    const scheduling = loadConfig({
      ACCOUNT_WEIGHTS: ' acc_a=3, acc_b = 2 ,',
      ACCOUNT_MAX_IN_FLIGHT: '16',
    }).scheduling;
    expect(scheduling.weights).toEqual({ acc_a: 3, acc_b: 2 });
    expect(scheduling.maxInFlight).toBe(16);
    expect(() => loadConfig({ ACCOUNT_WEIGHTS: 'acc_a' })).toThrow(/ACCOUNT_WEIGHTS must list/);
    expect(() => loadConfig({ ACCOUNT_WEIGHTS: 'acc_a=0' })).toThrow(
      /ACCOUNT_WEIGHTS must be an integer/,
    );
    expect(() => loadConfig({ ACCOUNT_WEIGHTS: 'acc_a=1=2' })).toThrow(/ACCOUNT_WEIGHTS must list/);
    expect(() => loadConfig({ ACCOUNT_MAX_IN_FLIGHT: '0' })).toThrow(/ACCOUNT_MAX_IN_FLIGHT/);
  });

  it('runs WORKER_CONCURRENCY jobs a queue unless told to adapt them, down to a floor of 4', () => {
    const worker = loadConfig({}).worker;
    expect([worker.adaptiveConcurrency, worker.minConcurrency, worker.concurrency]).toEqual([
      false,
      4,
      256,
    ]);
    const adaptive = loadConfig({
      WORKER_ADAPTIVE_CONCURRENCY: 'true',
      WORKER_MIN_CONCURRENCY: '8',
    });
    expect([adaptive.worker.adaptiveConcurrency, adaptive.worker.minConcurrency]).toEqual([
      true,
      8,
    ]);
    expect(() => loadConfig({ WORKER_MIN_CONCURRENCY: '0' })).toThrow(/WORKER_MIN_CONCURRENCY/);
  });

  it('reaches Redis by URL, or through Sentinels that name the primary', () => {
    const single = loadConfig({
      REDIS_URL: 'rediss://cache.example.com:6380',
      REDIS_PASSWORD: 'pw',
    });
    expect(single).toMatchObject({
      redisUrl: 'rediss://cache.example.com:6380',
      redisAuth: { password: 'pw' },
    });
    expect(single.redisSentinel).toBeUndefined();
    const sentinel = loadConfig({
      REDIS_SENTINELS: 'a.example.com:26379, 10.0.0.2:26380',
      REDIS_SENTINEL_NAME: 'ais',
      REDIS_USERNAME: 'worker',
      REDIS_PASSWORD: 'pw',
    });
    expect(sentinel.redisSentinel).toEqual({
      sentinels: [
        { host: 'a.example.com', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
      ],
      name: 'ais',
    });
    expect(sentinel.redisAuth).toEqual({ username: 'worker', password: 'pw' });
    expect(() => loadConfig({ REDIS_SENTINELS: 'a:1' })).toThrow(/REDIS_SENTINEL_NAME/);
    expect(() => loadConfig({ REDIS_SENTINELS: 'a', REDIS_SENTINEL_NAME: 'x' })).toThrow(
      /REDIS_SENTINELS must be host:port/,
    );
  });

  it('reaches a Redis Cluster through some of its nodes, over TLS when they are rediss://', () => {
    const plain = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7001' });
    expect(plain.redisCluster).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      tls: false,
    });
    expect(plain.redisSentinel).toBeUndefined();
    const managed = loadConfig({
      REDIS_CLUSTER_NODES: 'rediss://cfg.cache.example.com:6379',
      REDIS_USERNAME: 'worker',
      REDIS_PASSWORD: 'pw',
    });
    expect(managed.redisCluster).toEqual({
      nodes: [{ host: 'cfg.cache.example.com', port: 6379 }],
      tls: true,
    });
    expect(managed.redisAuth).toEqual({ username: 'worker', password: 'pw' });
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1' })).toThrow(
      /REDIS_CLUSTER_NODES must be host:port/,
    );
    expect(() =>
      loadConfig({ REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINELS: 'b:2', REDIS_SENTINEL_NAME: 'x' }),
    ).toThrow(/REDIS_CLUSTER_NODES cannot be set with REDIS_SENTINELS/);
  });

  it('keeps managed keys local unless SIGNER_BACKEND=pkcs11 names a token', () => {
    expect(loadConfig({}).signer).toEqual({ backend: 'local' });
    const token = {
      SIGNER_BACKEND: 'pkcs11',
      PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so',
      PKCS11_TOKEN_LABEL: 'ais',
    };
    expect(loadConfig({ ...token, PKCS11_PIN: '1234' }).signer).toEqual({
      backend: 'pkcs11',
      pkcs11: { ...{ module: token.PKCS11_MODULE, tokenLabel: 'ais' }, pin: '1234', sessions: 4 },
    });
    const dir = mkdtempSync(join(tmpdir(), 'pin-'));
    writeFileSync(join(dir, 'pin'), '9876\n');
    const fromFile = loadConfig({ ...token, PKCS11_PIN_FILE: join(dir, 'pin') }).signer;
    expect(fromFile.backend === 'pkcs11' && fromFile.pkcs11.pin).toBe('9876');
    expect(() => loadConfig(token)).toThrow(/PKCS11_PIN \(or PKCS11_PIN_FILE\) is required/);
    expect(() => loadConfig({ ...token, PKCS11_PIN: '1', PKCS11_PIN_FILE: 'x' })).toThrow(
      /both set/,
    );
    expect(() => loadConfig({ ...token, PKCS11_PIN_FILE: join(dir, 'none') })).toThrow(
      /PKCS11_PIN_FILE cannot be read/,
    );
    expect(() => loadConfig({ SIGNER_BACKEND: 'pkcs11', PKCS11_PIN: '1' })).toThrow(
      /PKCS11_MODULE is required/,
    );
    expect(() => loadConfig({ SIGNER_BACKEND: 'kms' })).toThrow(/SIGNER_BACKEND/);
  });

  it('reads the webhook settings: retries for a day, disabling after five days by default', () => {
    expect(loadConfig({}).webhooks).toEqual({
      maxEndpointsPerAccount: 20,
      timeoutMs: 5_000,
      retryBaseMs: 5_000,
      retryMaxMs: 3_600_000,
      retryWindowMs: 86_400_000,
      disableAfterMs: 432_000_000,
      pauseAfterFailures: 3,
      concurrency: 32,
      leaseMs: 30_000,
      sweepIntervalMs: 1_000,
    });
    // A lease must outlast a request: at least two timeouts and a second.
    expect(
      loadConfig({ WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_LEASE_MS: '3000' }).webhooks.leaseMs,
    ).toBe(3_000);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_LEASE_MS: '2999' })).toThrow(
      /WEBHOOK_LEASE_MS must be an integer between 3000/,
    );
    expect(() => loadConfig({ WEBHOOK_RETRY_WINDOW_MS: 'a day' })).toThrow(
      /WEBHOOK_RETRY_WINDOW_MS/,
    );
  });

  it('reads RPC URL overrides per network', () => {
    const config = loadConfig({ RPC_URL_POLYGON: 'https://polygon.example/rpc' });
    expect(config.chains.rpcUrlOverrides).toEqual({ polygon: ['https://polygon.example/rpc'] });
  });

  it('reads comma-separated RPC URL lists, in order, for failover', () => {
    const config = loadConfig({
      ...DEVNET,
      RPC_URL_BASE: 'https://a.example/rpc/KEY, https://b.example:8545 ,',
      RPC_URL_SOLANA: 'https://sol-1.example,https://sol-2.example',
    });
    expect(config.chains.rpcUrlOverrides).toEqual({
      base: ['https://a.example/rpc/KEY', 'https://b.example:8545'],
      solana: ['https://sol-1.example', 'https://sol-2.example'],
    });
    const local = loadConfig({
      LOCAL_EVM_RPC_URL: 'http://127.0.0.1:1001,http://127.0.0.1:1002',
      LOCAL_SOLANA_RPC_URL: 'http://127.0.0.1:2001,http://127.0.0.1:2002',
    });
    expect(local.chains.localEvmRpcUrls).toEqual([
      'http://127.0.0.1:1001',
      'http://127.0.0.1:1002',
    ]);
    expect(local.chains.localSolanaRpcUrls).toEqual([
      'http://127.0.0.1:2001',
      'http://127.0.0.1:2002',
    ]);
    expect(loadConfig({}).chains).toMatchObject({
      localEvmRpcUrls: ['http://127.0.0.1:8545'],
      localSolanaRpcUrls: ['http://127.0.0.1:8899'],
      rpcFailoverCooldownMs: 30_000,
    });
    expect(loadConfig({ RPC_FAILOVER_COOLDOWN_MS: '500' }).chains.rpcFailoverCooldownMs).toBe(500);
  });

  it('refuses a malformed, empty or repeating RPC URL list', () => {
    expect(() => loadConfig({ RPC_URL_BASE: 'https://a.example,not a url' })).toThrow(
      /RPC_URL_BASE must be a URL \(got "not a url"\)/,
    );
    expect(() => loadConfig({ LOCAL_EVM_RPC_URL: ' , ' })).toThrow(
      /LOCAL_EVM_RPC_URL must name at least one URL/,
    );
    expect(() =>
      loadConfig({ LOCAL_SOLANA_RPC_URL: 'http://127.0.0.1:1,http://127.0.0.1:1' }),
    ).toThrow(/LOCAL_SOLANA_RPC_URL repeats a URL/);
    expect(() => loadConfig({ RPC_FAILOVER_COOLDOWN_MS: 'soon' })).toThrow(
      /RPC_FAILOVER_COOLDOWN_MS must be an integer/,
    );
  });

  it('reads the Solana send settings: confirmed commitment, no priority fee floor by default', () => {
    expect(loadConfig({}).solana).toEqual({
      commitment: 'confirmed',
      priorityFeeMicroLamports: 0,
      priorityFeeMaxMicroLamports: 1_000_000,
      priorityFeePercentile: 75,
      computeUnitMarginPercent: 20,
      computeUnitLimit: undefined,
      rebroadcastMs: 2_000,
    });
    const config = loadConfig({
      SOLANA_COMMITMENT: 'finalized',
      SOLANA_PRIORITY_FEE_MICROLAMPORTS: '5000',
      SOLANA_COMPUTE_UNIT_LIMIT: '200000',
    });
    expect(config.solana).toMatchObject({
      commitment: 'finalized',
      priorityFeeMicroLamports: 5000,
      computeUnitLimit: 200_000,
    });
    expect(() => loadConfig({ SOLANA_COMMITMENT: 'max' })).toThrow(/SOLANA_COMMITMENT/);
    expect(() => loadConfig({ SOLANA_COMPUTE_UNIT_LIMIT: '2000000' })).toThrow(
      /SOLANA_COMPUTE_UNIT_LIMIT/,
    );
  });

  it('reads the priority fee bounds: a floor, a cap not below it, a percentile 1..100', () => {
    expect(
      loadConfig({
        SOLANA_PRIORITY_FEE_MICROLAMPORTS: '100',
        SOLANA_PRIORITY_FEE_MAX_MICROLAMPORTS: '50000',
        SOLANA_PRIORITY_FEE_PERCENTILE: '90',
      }).solana,
    ).toMatchObject({
      priorityFeeMicroLamports: 100,
      priorityFeeMaxMicroLamports: 50_000,
      priorityFeePercentile: 90,
    });
    // A floor above the default cap lifts the cap with it.
    expect(
      loadConfig({ SOLANA_PRIORITY_FEE_MICROLAMPORTS: '2000000' }).solana
        .priorityFeeMaxMicroLamports,
    ).toBe(2_000_000);
    expect(() =>
      loadConfig({
        SOLANA_PRIORITY_FEE_MICROLAMPORTS: '5000',
        SOLANA_PRIORITY_FEE_MAX_MICROLAMPORTS: '4000',
      }),
    ).toThrow(/SOLANA_PRIORITY_FEE_MAX_MICROLAMPORTS/);
    expect(() => loadConfig({ SOLANA_PRIORITY_FEE_PERCENTILE: '0' })).toThrow(
      /SOLANA_PRIORITY_FEE_PERCENTILE/,
    );
    expect(() => loadConfig({ SOLANA_PRIORITY_FEE_PERCENTILE: '101' })).toThrow(
      /SOLANA_PRIORITY_FEE_PERCENTILE/,
    );
  });

  it('reads the log level and the extra redaction paths, refusing malformed ones', () => {
    expect(loadConfig({}).log).toEqual({ level: 'info', redactPaths: [], requestHeaders: false });
    const config = loadConfig({
      LOG_LEVEL: 'debug',
      LOG_REDACT_PATHS: ' req.headers["x-partner-token"], body.card.*, items[*].pin ,',
      LOG_REQUEST_HEADERS: 'true',
    });
    expect(config.log).toEqual({
      level: 'debug',
      redactPaths: ['req.headers["x-partner-token"]', 'body.card.*', 'items[*].pin'],
      requestHeaders: true,
    });
    expect(() => loadConfig({ LOG_REQUEST_HEADERS: 'all' })).toThrow(/LOG_REQUEST_HEADERS/);
    expect(() => loadConfig({ LOG_REDACT_PATHS: 'req.headers.x-token' })).toThrow(
      /LOG_REDACT_PATHS has "req.headers.x-token"/,
    );
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL must be one of/);
  });

  it('caches chain reads for 2 s by default; 0 turns the cache off', () => {
    expect(loadConfig({}).api.chainReadCacheTtlMs).toBe(2_000);
    expect(loadConfig({ CHAIN_READ_CACHE_TTL_MS: '0' }).api.chainReadCacheTtlMs).toBe(0);
    expect(() => loadConfig({ CHAIN_READ_CACHE_TTL_MS: '-1' })).toThrow(/CHAIN_READ_CACHE_TTL_MS/);
  });

  it('prepares repeated statements unless DATABASE_PREPARED_STATEMENTS=false', () => {
    expect(loadConfig({}).databasePreparedStatements).toBe(true);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements).toBe(
      false,
    );
    expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'sometimes' })).toThrow(
      /DATABASE_PREPARED_STATEMENTS must be true or false/,
    );
  });

  it('bounds the waits on Postgres and Redis: 5 s to connect, 1 s for Redis by default', () => {
    expect(loadConfig({}).databaseConnectTimeoutMs).toBe(5_000);
    expect(loadConfig({}).queue.redisTimeoutMs).toBe(1_000);
    const set = loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: '2000', REDIS_TIMEOUT_MS: '250' });
    expect(set.databaseConnectTimeoutMs).toBe(2_000);
    expect(set.queue.redisTimeoutMs).toBe(250);
    expect(() => loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: '0' })).toThrow(
      /DATABASE_CONNECT_TIMEOUT_MS must be an integer/,
    );
    expect(() => loadConfig({ REDIS_TIMEOUT_MS: 'soon' })).toThrow(/REDIS_TIMEOUT_MS must be/);
  });

  it('takes a worker replica name fit for lease ids, or none', () => {
    expect(loadConfig({}).worker.replica).toBeUndefined();
    expect(loadConfig({ WORKER_REPLICA: 'worker-0.eu_1' }).worker.replica).toBe('worker-0.eu_1');
    for (const bad of ['a@b', 'a:b', 'x'.repeat(64), 'two words']) {
      expect(() => loadConfig({ WORKER_REPLICA: bad })).toThrow(/WORKER_REPLICA must be/);
    }
  });

  it('shards each network into 4 queues, leased for 5 s, by default', () => {
    expect(loadConfig({}).queue).toMatchObject({ shards: 4, leaseTtlMs: 5_000 });
    const set = loadConfig({ QUEUE_SHARDS: '64', LEASE_TTL_MS: '3000' });
    expect(set.queue).toMatchObject({ shards: 64, leaseTtlMs: 3_000 });
    expect(loadConfig({ QUEUE_SHARDS: '1' }).queue.shards).toBe(1);
    for (const shards of ['0', '65', '2.5']) {
      expect(() => loadConfig({ QUEUE_SHARDS: shards })).toThrow(/QUEUE_SHARDS must be/);
    }
    expect(() => loadConfig({ LEASE_TTL_MS: '10' })).toThrow(/LEASE_TTL_MS must be/);
  });

  it('reads the HTTP timeouts: headers within 10 s, the whole request within 20 s', () => {
    expect(loadConfig({}).api).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 20_000,
    });
    // A request timeout under the default headers timeout brings the headers timeout down too.
    expect(loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '3000' }).api).toMatchObject({
      headersTimeoutMs: 3_000,
      requestTimeoutMs: 3_000,
    });
    expect(() =>
      loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '20000' }),
    ).toThrow(/HTTP_HEADERS_TIMEOUT_MS must be an integer between 100 and 20000/);
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });

  it('reads the per-key rate limit, 600 requests a minute by default', () => {
    expect(loadConfig({}).rateLimit).toEqual({ requests: 600, windowSeconds: 60 });
    const config = loadConfig({ RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: '10' });
    expect(config.rateLimit).toEqual({ requests: 5, windowSeconds: 10 });
    expect(() => loadConfig({ RATE_LIMIT_REQUESTS: '0' })).toThrow(/RATE_LIMIT_REQUESTS/);
    expect(() => loadConfig({ RATE_LIMIT_WINDOW_SECONDS: 'a minute' })).toThrow(
      /RATE_LIMIT_WINDOW_SECONDS must be an integer/,
    );
  });

  it('reads the sign-in, registration and account limits as <requests>/<seconds>', () => {
    expect(loadConfig({}).limits).toEqual({
      accountWrites: { requests: 600, windowSeconds: 60 },
      loginPerEmail: { requests: 10, windowSeconds: 900 },
      loginPerIp: { requests: 30, windowSeconds: 60 },
      registerPerEmail: { requests: 5, windowSeconds: 3600 },
      registerPerIp: { requests: 20, windowSeconds: 3600 },
      adminPerIp: { requests: 10, windowSeconds: 900 },
      maxApiKeysPerAccount: 10,
    });
    // The account's write limit follows the per-key limit unless set.
    const raised = loadConfig({
      RATE_LIMIT_REQUESTS: '1000000000',
      RATE_LIMIT_WINDOW_SECONDS: '5',
    });
    expect(raised.limits.accountWrites).toEqual({ requests: 1_000_000_000, windowSeconds: 5 });
    const set = loadConfig({ ACCOUNT_WRITE_LIMIT: '100/60', LOGIN_LIMIT_PER_EMAIL: ' 3 / 2 ' });
    expect(set.limits.accountWrites).toEqual({ requests: 100, windowSeconds: 60 });
    expect(set.limits.loginPerEmail).toEqual({ requests: 3, windowSeconds: 2 });
    for (const bad of ['10', '0/60', '10/0', '10/86401', 'ten/60', '10/60/2']) {
      expect(() => loadConfig({ LOGIN_LIMIT_PER_IP: bad })).toThrow(
        /LOGIN_LIMIT_PER_IP must be <requests>\/<seconds>/,
      );
    }
    expect(() => loadConfig({ MAX_API_KEYS_PER_ACCOUNT: '0' })).toThrow(/MAX_API_KEYS_PER_ACCOUNT/);
  });

  it('trusts no proxy about the client address unless told to', () => {
    expect(loadConfig({}).api.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).api.trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).api.trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1' }).api.trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
    ]);
    for (const bad of ['yes please', '10.0.0.0/33', '10.0.0.1/8/1', 'proxy.internal']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY must be/);
    }
  });
});
