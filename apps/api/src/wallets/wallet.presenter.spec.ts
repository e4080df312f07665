import { presentCreatedWallet } from './wallet.presenter';

describe('wallet presenter', () => {
  it('shows a created wallet with its secret key and its creation time as an ISO string', () => {
    const view = presentCreatedWallet({
      network: 'solana',
      publicKey: 'So1anaAddress',
      secretKey: 'base58 secret',
      createdAt: new Date('2026-03-01T10:00:00.000Z'),
    });
    expect(JSON.stringify(view)).toBe(
      JSON.stringify({
        network: 'solana',
        public_key: 'So1anaAddress',
        secret_key: 'base58 secret',
        created_at: '2026-03-01T10:00:00.000Z',
      }),
    );
  });
});
