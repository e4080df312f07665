import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus series. Each process (api, worker) has its own registry and exposes
 * what it measures: the api its HTTP traffic, accepted operations and queue depth; the worker
 * its jobs, settled operations, RPC errors and nonce-ledger resyncs.
 */
export const metricsRegistry = new Registry();

// The process's own series (CPU, memory, event-loop delay, garbage collection), as Node
// services expose them: `nodejs_eventloop_lag_max_seconds` is the longest a callback waited
// since the last scrape.
collectDefaultMetrics({ register: metricsRegistry });

export const METRICS = {
  httpRequestDuration: new Histogram({
    name: 'ais_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [metricsRegistry],
  }),
  operations: new Counter({
    name: 'ais_operations_total',
    help: 'Operations reaching a status (queued on acceptance, confirmed or failed on settling)',
    labelNames: ['kind', 'network', 'status'] as const,
    registers: [metricsRegistry],
  }),
  queueJobs: new Gauge({
    name: 'ais_queue_jobs',
    help: 'Jobs per operation queue and state, read when scraped',
    labelNames: ['queue', 'state'] as const,
    registers: [metricsRegistry],
  }),
  accountPending: new Gauge({
    name: 'ais_account_pending_operations',
    help: "An account's operations on a network's queue and not completed, read when scraped",
    labelNames: ['network', 'account'] as const,
    registers: [metricsRegistry],
  }),
  accountInFlight: new Gauge({
    name: 'ais_account_in_flight_operations',
    help: "An account's operations a network's workers are running now, read when scraped",
    labelNames: ['network', 'account'] as const,
    registers: [metricsRegistry],
  }),
  managedWalletBalance: new Gauge({
    name: 'ais_managed_wallet_balance',
    help: "A managed wallet's native balance in whole units (ETH, SOL...), as the worker's funds monitor last read it; only wallets read within the hour",
    labelNames: ['network', 'address'] as const,
    registers: [metricsRegistry],
  }),
  jobDuration: new Histogram({
    name: 'ais_job_duration_seconds',
    help: 'Time a worker spent on one operation job, by queue and outcome',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registers: [metricsRegistry],
  }),
  jobsInFlightLimit: new Gauge({
    name: 'ais_worker_jobs_in_flight_limit',
    help: "A worker's limit of jobs in flight on an operation queue, as its adaptive limit last set it",
    labelNames: ['queue'] as const,
    registers: [metricsRegistry],
  }),
  databasePoolWait: new Histogram({
    name: 'ais_database_pool_wait_seconds',
    help: "Time a query waited for one of the process's pooled Postgres connections, by lane: 'first' for an account's first pending operations, 'fair' for the rest",
    labelNames: ['lane'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metricsRegistry],
  }),
  rpcErrors: new Counter({
    name: 'ais_rpc_errors_total',
    help: 'RPC calls that failed or timed out, by network',
    labelNames: ['network'] as const,
    registers: [metricsRegistry],
  }),
  webhookDeliveries: new Counter({
    name: 'ais_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed)',
    labelNames: ['outcome'] as const,
    registers: [metricsRegistry],
  }),
  nonceResyncs: new Counter({
    name: 'ais_nonce_ledger_resyncs_total',
    help: 'Nonce ledger corrections against the chain, by network and direction',
    labelNames: ['network', 'direction'] as const,
    registers: [metricsRegistry],
  }),
  nonceGapsClosed: new Counter({
    name: 'ais_nonce_gaps_closed_total',
    help: "Times a wallet's missing nonces were sent again (or filled) so later transactions could land",
    labelNames: ['network'] as const,
    registers: [metricsRegistry],
  }),
  evmReorgedReceipts: new Counter({
    name: 'ais_evm_reorged_receipts_total',
    help: 'Receipts gone or moved when their confirmations were counted (a reorg), by network',
    labelNames: ['network'] as const,
    registers: [metricsRegistry],
  }),
  unrecognisedRefusals: new Counter({
    name: 'ais_unrecognised_refusals_total',
    help: "Node refusals and worker errors no classifier knows (each failed or was retried as 'Unexpected'), by chain family and kind: find them here and teach the classifier",
    labelNames: ['family', 'kind'] as const,
    registers: [metricsRegistry],
  }),
  walletFundsShort: new Counter({
    name: 'ais_wallet_funds_short_total',
    help: 'Writes a managed wallet could not pay for, by network and stage (refused before signing, or waiting once signed)',
    labelNames: ['network', 'stage'] as const,
    registers: [metricsRegistry],
  }),
};
