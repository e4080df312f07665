import {
  arrayOf,
  chainFamily,
  dateTime,
  nullable,
  strictObject,
  text,
  viewSchema,
} from '../http/docs/schema';
import type { AccountWalletView } from './account-wallets.controller';
import type { AccountView, ApiKeyView, IssuedApiKeyView } from './account.presenter';

const apiKeyFields = {
  id: text,
  name: text,
  prefix: text,
  created_at: dateTime,
  revoked_at: nullable(dateTime),
};

export const ACCOUNT_VIEW = viewSchema<AccountView>('AccountView', {
  id: text,
  email: text,
  wallets: arrayOf(strictObject({ network: chainFamily, public_key: text })),
  created_at: dateTime,
});

export const API_KEY_VIEW = viewSchema<ApiKeyView>('ApiKeyView', apiKeyFields);

export const ISSUED_API_KEY = viewSchema<IssuedApiKeyView>('IssuedApiKey', {
  ...apiKeyFields,
  key: { type: 'string', description: 'The whole key: shown in this response only.' },
});

export const ACCOUNT_WALLET_VIEW = viewSchema<AccountWalletView>('AccountWalletView', {
  network: chainFamily,
  resolved_network: text,
  public_key: text,
  balance: nullable({ type: 'string', description: 'Native units; null when the chain is down' }),
  currency: text,
  low_balance: nullable({
    type: 'boolean',
    description:
      "Below the network's low-balance threshold (WALLET_LOW_BALANCE_<NETWORK>); null when the balance is unknown",
  }),
  low_balance_threshold: { type: 'string', description: 'Native units' },
  estimated_operations_left: nullable({
    type: 'integer',
    description:
      'Roughly how many more operations the balance pays for, at the cost of a typical one now (EVM: an NFT mint, 200k gas at the fee cap; Solana: an item mint, its fees and the rent of its new accounts), rounded down; null when the balance is unknown',
  }),
});
