/**
 * @app/database: the Postgres schema (entities, migrations) and the repositories that hold every
 * query. Imports only @app/config; never an app, the queue or the chains.
 */
export * from './connect-phase-client';
export * from './data-source';
export * from './database-unavailable';
export * from './database.module';
export * from './entities';
export * from './migrate';
export * from './pg-notifications';
// Not managerOf / scopeOf: outside this lib a scope is opaque.
export { PriorityPool, QueryPriority } from './query-priority';
export { UnitOfWork, type WorkScope } from './unit-of-work';
export * from './repositories/account.repository';
export * from './repositories/asset.repository';
export * from './repositories/batch.repository';
export * from './repositories/chain-key.repository';
export * from './repositories/idempotency.repository';
export * from './repositories/nonce-ledger.repository';
export * from './repositories/operation.repository';
export * from './repositories/api-key.repository';
export * from './repositories/created-wallet.repository';
export * from './repositories/managed-wallet.repository';
export * from './repositories/session.repository';
export * from './repositories/settlement.repository';
export * from './repositories/solana-operation.repository';
export * from './repositories/audit-event.repository';
export * from './repositories/account-event.repository';
export * from './repositories/account-assets.repository';
export * from './repositories/page-cursor';
export * from './repositories/operation-usage.repository';
export * from './repositories/webhook-endpoint.repository';
export * from './repositories/webhook-delivery.repository';
export * from './repositories/wallet-funds.repository';
export * from './repositories/signing-policy.repository';
export * from './audit/audit-chain';
export * from './audit/audit-verification';
export * from './chain-keys/chain-key-rekey';
export * from './repositories/sealed-secrets.repository';
export * from './database-cli';
