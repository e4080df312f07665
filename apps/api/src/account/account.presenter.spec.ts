import type { ApiKeyEntity } from '@app/database';
import type { AccountProfile } from '@app/domain';
import { presentAccount, presentApiKey, presentIssuedApiKey } from './account.presenter';

const key: ApiKeyEntity = {
  id: '0b5c6c44-8f0e-4a52-9a4f-2b7c1f0e9d11',
  accountId: 'a1f7a0c2-3d4e-4b5f-8a6b-7c8d9e0f1a2b',
  name: 'CI',
  keyPrefix: 'ak_live_abcd',
  keyHash: 'hash of the key',
  createdAt: new Date('2026-03-01T10:00:00.000Z'),
  revokedAt: null,
};

describe('account presenter', () => {
  it('shows the account with its wallets, in the order the profile lists them', () => {
    const account: AccountProfile = {
      id: 'a1f7a0c2-3d4e-4b5f-8a6b-7c8d9e0f1a2b',
      email: 'ada@example.com',
      wallets: [
        { family: 'solana', address: 'So1anaAddress' },
        { family: 'evm', address: '0xabc' },
      ],
      createdAt: new Date('2026-03-01T09:00:00.000Z'),
    };
    expect(JSON.stringify(presentAccount(account))).toBe(
      JSON.stringify({
        id: account.id,
        email: 'ada@example.com',
        wallets: [
          { network: 'solana', public_key: 'So1anaAddress' },
          { network: 'evm', public_key: '0xabc' },
        ],
        created_at: '2026-03-01T09:00:00.000Z',
      }),
    );
  });

  it('shows a key without its hash, revoked_at null while it is active', () => {
    const view = presentApiKey(key);
    expect(view).toStrictEqual({
      id: key.id,
      name: 'CI',
      prefix: 'ak_live_abcd',
      created_at: '2026-03-01T10:00:00.000Z',
      revoked_at: null,
    });
    expect(JSON.stringify(view)).not.toContain('hash of the key');
  });

  it('gives a revoked key its revocation time', () => {
    const revokedAt = new Date('2026-03-02T11:30:00.000Z');
    expect(presentApiKey({ ...key, revokedAt }).revoked_at).toBe('2026-03-02T11:30:00.000Z');
  });

  it('adds the whole key, last, to the answer to its issue only', () => {
    const view = presentIssuedApiKey({ apiKey: key, key: 'ak_live_abcdef0123456789' });
    expect(Object.keys(view)).toEqual(['id', 'name', 'prefix', 'created_at', 'revoked_at', 'key']);
    expect(view.key).toBe('ak_live_abcdef0123456789');
  });
});
