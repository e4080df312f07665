import type { ConcreteNetwork, EvmNetwork, Profile } from './networks';

export interface MasterKey {
  id: string;
  key: Buffer;
}

/** At most `requests` in a fixed window of `windowSeconds`. */
export interface Pkcs11Settings {
  /** PKCS11_MODULE: the token's PKCS#11 library. */
  module: string;
  /** PKCS11_TOKEN_LABEL. */
  tokenLabel: string;
  /** PKCS11_PIN, or the content of PKCS11_PIN_FILE (its last newline dropped). */
  pin: string;
  /** PKCS11_SESSIONS: sessions kept open, signatures at once. */
  sessions: number;
}

export interface RateRule {
  requests: number;
  windowSeconds: number;
}

/** The typed configuration object: the only view of the environment the rest of the code has. */
export interface AppConfig {
  profile: Profile;
  api: {
    host: string;
    port: number;
    bodyLimitBytes: number;
    /** The body limit of the airdrop routes (`AIRDROP_BODY_LIMIT_BYTES`): up to 10,000 entries. */
    airdropBodyLimitBytes: number;
    cookieSecure: boolean;
    sessionTtlHours: number;
    /** When set, requests must carry a matching `auth-key` header (spec 5.4). */
    authKey?: string;
    /** Fastify `trustProxy`: which proxies may name the client address (TRUST_PROXY). */
    trustProxy: boolean | number | string[];
    /** On SIGTERM: how long to keep serving (unhealthy, closing connections) before closing. */
    shutdownDrainMs: number;
    /** A client must send a request's headers within this, else 408 and the connection closes. */
    headersTimeoutMs: number;
    /**
     * ... and the whole request (body included) within this. A handler's own time (a write
     * waiting SYNC_WAIT_MS for its operation) is not counted: the request is read by then.
     */
    requestTimeoutMs: number;
    /**
     * How long a chain read (a balance, a supply, an item's owner) is served from the cache; 0
     * reads the chain every time (still one call for concurrent readers of one key).
     */
    chainReadCacheTtlMs: number;
  };
  /** Bull Board at /admin/queues: mounted only when a password is configured. */
  admin?: { user: string; password: string };
  databaseUrl: string;
  /** Postgres connections per process (api and each worker). */
  databasePoolSize: number;
  /**
   * How long to wait for a Postgres connection (a new one, or a free one from the pool) before
   * failing: an unreachable database is a prompt 503, not a request that hangs.
   */
  databaseConnectTimeoutMs: number;
  /**
   * Statements run again and again are prepared once a connection (see PreparingClient); false
   * behind a pooler that cannot keep them (PgBouncer in transaction mode before 1.21).
   */
  databasePreparedStatements: boolean;
  /** REDIS_URL: the one Redis node (`redis://` or `rediss://`); unused with Sentinels or a Cluster. */
  redisUrl: string;
  /**
   * REDIS_SENTINELS (`host:port,...`) and REDIS_SENTINEL_NAME: the primary the Sentinels name,
   * followed through failovers.
   */
  redisSentinel?: { sentinels: { host: string; port: number }[]; name: string };
  /**
   * REDIS_CLUSTER_NODES (`host:port,...`, or `rediss://host:port,...` for TLS): some nodes of a
   * Redis Cluster, from which the client learns the rest.
   */
  redisCluster?: { nodes: { host: string; port: number }[]; tls: boolean };
  /** REDIS_USERNAME / REDIS_PASSWORD (an ACL user, or AUTH alone), where the URL has none. */
  redisAuth: { username?: string; password?: string };
  crypto: {
    /** The key new secrets are encrypted under. */
    activeKey: MasterKey;
    /** Every key that may still decrypt stored secrets (rotation keeps old ones here). */
    keys: ReadonlyMap<string, MasterKey>;
  };
  /**
   * Where managed wallets' keys live (SIGNER_BACKEND): `local`, encrypted under the master key
   * and decrypted for the moment of signing; `pkcs11`, generated in a PKCS#11 token and never
   * leaving it.
   */
  signer: { backend: 'local' } | { backend: 'pkcs11'; pkcs11: Pkcs11Settings };
  chains: {
    defaultEvmNetwork: EvmNetwork;
    /**
     * RPC URL overrides per network, from `RPC_URL_<NETWORK>` variables: one or more endpoints,
     * in order of preference (failover).
     */
    rpcUrlOverrides: Partial<Record<ConcreteNetwork, string[]>>;
    /** Local profile: the local anvil and Solana validator URLs (one or more each). */
    localEvmRpcUrls: string[];
    localSolanaRpcUrls: string[];
    localSolanaWsUrl: string;
    /** Local profile: fund new managed wallets from the local chains. */
    fundManagedWallets: boolean;
    rpcTimeoutMs: number;
    /** How long an RPC endpoint that failed (unreachable, timed out) is passed over. */
    rpcFailoverCooldownMs: number;
  };
  operations: {
    syncWaitMs: number;
    /** Idempotency-Key retention. */
    idempotencyTtlHours: number;
    /** Where hosted metadata is reachable: metadata_uri = <publicBaseUrl>/metadata/<id>. */
    publicBaseUrl: string;
  };
  queue: {
    /** BullMQ key prefix (lets several deployments or test runs share one Redis). */
    prefix: string;
    /**
     * How long a request waits on Redis (to take a write's job, to subscribe to settlement news)
     * before going on without it: the operation stays queued in Postgres and the reconciler
     * enqueues it once Redis is back.
     */
    redisTimeoutMs: number;
    /**
     * Queues per network: an operation goes to the shard of its signer's address, so one
     * wallet's operations share a queue. API and workers must agree on it.
     */
    shards: number;
    /**
     * How long a worker's lease on a shard lasts unless renewed (every third of it): a killed
     * worker's shards are taken over by the others within this.
     */
    leaseTtlMs: number;
  };
  worker: {
    /** The networks whose queues this worker takes (default: all). */
    networks: ConcreteNetwork[] | 'all';
    /**
     * Jobs in flight per queue at most: confirmations overlap, sends stay ordered per wallet.
     * With `adaptiveConcurrency`, the ceiling of a limit that follows the jobs' latency.
     */
    concurrency: number;
    /** Each queue's jobs in flight adapt to their latency, between the floor and the ceiling. */
    adaptiveConcurrency: boolean;
    /** The adaptive limit's floor. */
    minConcurrency: number;
    /** A job whose worker stopped renewing its lock (it died) is run again after this long. */
    jobLockMs: number;
    /** How often the reconciler looks for operations that lost their job. */
    reconcileIntervalMs: number;
    /** How long an unsettled operation may sit untouched before the reconciler re-enqueues it. */
    reconcileAfterMs: number;
    /** EVM: how long to wait for a receipt before re-broadcasting the same bytes. */
    rebroadcastAfterMs: number;
    /**
     * How long an operation may keep failing transiently (RPC down...), from its first failed
     * attempt, before it fails with RETRIES_EXHAUSTED (only while none of its transactions can
     * still land).
     */
    operationDeadlineMs: number;
    /** Prometheus metrics of this worker on http://<metricsHost>:<metricsPort>/metrics (off when unset). */
    metricsPort?: number;
    metricsHost: string;
    /** Test-only (local profile): kill the worker at a named point of the pipeline. */
    faultInjection?:
      'crash-after-sign' | 'crash-after-broadcast' | 'crash-after-pack' | 'crash-after-split';
    /**
     * WORKER_REPLICA: a name unique to this worker's slot (a StatefulSet pod name, a systemd unit
     * instance) that its restarts keep. A restarted replica takes its predecessor's shards at
     * once instead of waiting for their leases to lapse: the orchestrator runs one process per
     * slot, so a lease held under the same name is a dead process's.
     */
    replica?: string;
  };
  /** Fair share of a network's queue between accounts (docs/scheduling-and-leases.md). */
  scheduling: {
    /** An account's share relative to others (default 1): weight w takes w jobs per round. */
    weights: Record<string, number>;
    /** Operations of one account a network's workers run at once; the rest wait their turn. */
    maxInFlight: number;
    /** How long a job over its account's cap waits per round of the backlog ahead of it. */
    overCapDelayMs: number;
  };
  /** EVM fee policy: how a transaction that sits unmined is re-priced. */
  evm: {
    /** How long a sent transaction may go unmined before it is re-priced from current fees. */
    replaceAfterMs: number;
    /** A replacement raises each fee field by at least this much (nodes require 10%). */
    feeBumpPercent: number;
    /** The highest fee per gas (wei) a transaction may offer, per network (`EVM_MAX_FEE_GWEI`). */
    maxFeePerGas: Record<EvmNetwork, bigint>;
    /**
     * How many blocks, its own included, must hold a transaction before its operation settles
     * (`EVM_CONFIRMATIONS`): a reorg before then takes it away and it is sent again.
     */
    confirmations: Record<EvmNetwork, number>;
    /**
     * The share of a block's gas limit, in percent, one airdrop transaction may use
     * (`AIRDROP_BLOCK_GAS_PERCENT`): its carrier packs as many mints as fit by estimate.
     */
    airdropBlockGasPercent: number;
  };
  /** Solana sends (the EVM equivalents live in `worker`). */
  solana: {
    /** The commitment a signature status must reach for an operation to be confirmed. */
    commitment: 'processed' | 'confirmed' | 'finalized';
    /**
     * The least compute-unit price (priority fee, micro-lamports) of every transaction; the
     * network's recent fees raise it up to `priorityFeeMaxMicroLamports`. 0 with nothing above
     * it sends none.
     */
    priorityFeeMicroLamports: number;
    /** The cap on the compute-unit price, however high the network's recent fees. */
    priorityFeeMaxMicroLamports: number;
    /** The percentile (1..100) of recent per-slot fees, for the written accounts, to match. */
    priorityFeePercentile: number;
    /** Headroom over the simulated compute units, in percent. */
    computeUnitMarginPercent: number;
    /** A fixed compute-unit limit: when set, transactions are not simulated to size it. */
    computeUnitLimit?: number;
    /** How long to wait for a status before sending the same signed bytes again. */
    rebroadcastMs: number;
  };
  /** Requests per API key and window, counted in Redis so that every API instance shares them. */
  /** Requests per API key (every instance shares the count in Redis). */
  rateLimit: RateRule;
  /** What one account or one client address may do; counted in Redis like `rateLimit`. */
  limits: {
    /** Writes (non-GET api-key requests) of all the keys of one account together. */
    accountWrites: RateRule;
    /** Sign-ins per email that did not succeed (a success gives its attempt back). */
    loginPerEmail: RateRule;
    /** Sign-in attempts per client address. */
    loginPerIp: RateRule;
    /** Registration attempts per email. */
    registerPerEmail: RateRule;
    /** Registration attempts per client address. */
    registerPerIp: RateRule;
    /** Admin Basic sign-ins per client address that did not succeed (/metrics, /admin/queues). */
    adminPerIp: RateRule;
    /** Active (unrevoked) API keys one account may hold. */
    maxApiKeysPerAccount: number;
  };
  /** The live event stream (GET /events/stream, Server-Sent Events). */
  eventStream: {
    /** How often an idle stream sends a comment line (keeps proxies from closing it). */
    heartbeatMs: number;
    /** How often a stream re-reads Postgres without being woken (in case a notification was lost). */
    pollMs: number;
    /** The `retry:` hint: how long a client waits before reconnecting. */
    retryMs: number;
    /** Streams one account may hold open on one API instance; one more is 429. */
    maxPerAccount: number;
  };
  /** Webhook endpoints and their deliveries (docs/events-and-webhooks.md). */
  webhooks: {
    /** Endpoints one account may hold. */
    maxEndpointsPerAccount: number;
    /** How long one delivery request may take (connect, send, answer) before it failed. */
    timeoutMs: number;
    /** The first retry's delay; each further retry doubles it (with jitter), up to `retryMaxMs`. */
    retryBaseMs: number;
    retryMaxMs: number;
    /** A delivery still failing this long after its first attempt is marked failed. */
    retryWindowMs: number;
    /** An endpoint with no success for this long (while failing) is disabled. */
    disableAfterMs: number;
    /** Consecutive failures in one pump after which the endpoint is paused until its next retry. */
    pauseAfterFailures: number;
    /** Webhook pumps in flight per worker (a queue of their own, apart from operations). */
    concurrency: number;
    /** How long a pump holds an endpoint; a killed worker's lease lapses after this. */
    leaseMs: number;
    /** How often each worker looks in Postgres for endpoints with due deliveries. */
    sweepIntervalMs: number;
  };
  /** Watching managed wallets' native balances (docs/events-and-webhooks.md: wallet.balance_low). */
  walletFunds: {
    /** How often the worker reads the balances of recently active or low managed wallets. */
    checkIntervalMs: number;
    /** Per network, the balance (base units) below which a managed wallet is announced low. */
    lowBalance: Record<ConcreteNetwork, bigint>;
  };
  log: {
    level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
    /** Paths redacted on top of the built-in list (credentials in headers, secret-named fields). */
    redactPaths: string[];
    /** Request and response headers on the per-request line (redacted); off by default. */
    requestHeaders: boolean;
  };
}
