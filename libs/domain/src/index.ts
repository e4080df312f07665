/**
 * @app/domain: the use cases (accounts, API keys, wallets, tokens, NFTs, operations). No HTTP and
 * no BullMQ imports: the api and the worker call in here; this lib never imports an app.
 */
export * from './accounts/account.service';
export * from './accounts/api-key.service';
export * from './accounts/managed-wallets';
export * from './assets/amounts';
export * from './assets/asset-inputs';
export * from './assets/metadata';
export * from './assets/nft.service';
export * from './assets/token.service';
export * from './audit/audit-reader';
export * from './audit/audit-trail';
export * from './domain.module';
export * from './events/account-event-feed';
export * from './events/account-event-view';
export * from './events/account-event-wakeups';
export * from './operations/operation-detail';
export * from './operations/operation-reader';
export * from './operations/operation-runner';
export * from './operations/operation-submitter';
export * from './operations/operation-view';
export * from './operations/reconciler';
export * from './operations/retry-later';
export * from './operations/settlement';
export * from './operations/settlement-waiter';
export * from './reads/chain-read-cache';
export * from './reads/account-assets';
export * from './reads/chain-reads';
export * from './reads/nft-queries';
export * from './reads/token-queries';
export * from './reads/wallet-queries';
export * from './security/password-hasher';
export * from './security/secret-box';
export * from './security/tokens';
export * from './usage/usage-reader';
export * from './wallets/wallet.service';
export * from './wallets/wallet-funds-monitor';
export * from './webhooks/webhook-address-policy';
export * from './webhooks/webhook-endpoints.service';
export * from './webhooks/webhook-pump';
export * from './webhooks/webhook-retry-schedule';
export * from './webhooks/webhook-sender';
export * from './webhooks/webhook-url-policy';
export * from './webhooks/webhook-views';
