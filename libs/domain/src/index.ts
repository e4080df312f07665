/**
 * @app/domain: the use cases (accounts, API keys, wallets; assets later). No HTTP and no BullMQ
 * imports: the api and the worker call in here; this lib never imports an app.
 */
export * from './accounts/account.service';
export * from './accounts/api-key.service';
export * from './accounts/managed-wallets';
export * from './domain.module';
export * from './security/password-hasher';
export * from './security/secret-box';
export * from './security/tokens';
export * from './wallets/wallet.service';
