import { boolean, dateTime, text, viewSchema } from '../http/docs/schema';
import type { CreatedWalletView, WalletView } from './wallet.presenter';

export const CREATED_WALLET_VIEW = viewSchema<CreatedWalletView>('CreatedWalletView', {
  network: text,
  public_key: text,
  secret_key: { type: 'string', description: 'Returned in this response only; never stored.' },
  created_at: dateTime,
});

export const WALLET_VIEW = viewSchema<WalletView>(
  'WalletView',
  {
    network: text,
    public_key: text,
    balance: { type: 'string', description: 'Native currency, in whole units' },
    balance_base_units: text,
    currency: text,
    managed: boolean,
    created_at: dateTime,
    as_of: dateTime,
    cached: boolean,
  },
  ['created_at'],
);
