import { AccountsKeysWallets1763800000000 } from './1763800000000-accounts-keys-wallets.migration';

/** Every migration, oldest first. Schema changes only ever land here (never `synchronize`). */
export const MIGRATIONS = [AccountsKeysWallets1763800000000];
