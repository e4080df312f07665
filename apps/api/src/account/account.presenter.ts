import type { ChainFamily } from '@app/config';
import type { ApiKeyEntity } from '@app/database';
import type { AccountProfile, IssuedApiKey } from '@app/domain';

export interface AccountView {
  id: string;
  email: string;
  wallets: { network: ChainFamily; public_key: string }[];
  created_at: string;
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface IssuedApiKeyView extends ApiKeyView {
  /** The whole key: in the answer to its issue only. */
  key: string;
}

/** The account and its managed wallets, in the order the profile lists them. */
export function presentAccount(account: AccountProfile): AccountView {
  return {
    id: account.id,
    email: account.email,
    wallets: account.wallets.map((wallet) => ({
      network: wallet.family,
      public_key: wallet.address,
    })),
    created_at: account.createdAt.toISOString(),
  };
}

/** A key's id, name and display prefix: never its hash. */
export function presentApiKey(key: ApiKeyEntity): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.keyPrefix,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

export function presentIssuedApiKey(issued: IssuedApiKey): IssuedApiKeyView {
  return { ...presentApiKey(issued.apiKey), key: issued.key };
}
