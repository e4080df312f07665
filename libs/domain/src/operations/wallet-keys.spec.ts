import type { ManagedWalletEntity, ManagedWalletRepository } from '@app/database';
import type { SecretBox } from '../security/secret-box';
import type { SigningToken } from '../security/signing-token';
import { WalletKeys } from './wallet-keys';

const ACCOUNT = '0195f0e4-0000-7000-8000-000000000001';

/** Keys over a repository that answers when told: a wallet the token holds (no secret here). */
function keysOver() {
  const answers: ((wallet: ManagedWalletEntity | null) => void)[] = [];
  const wallets = {
    findForAccount: jest.fn(
      () => new Promise<ManagedWalletEntity | null>((resolve) => answers.push(resolve)),
    ),
  };
  const keys = new WalletKeys(
    wallets as unknown as ManagedWalletRepository,
    {} as SecretBox,
    { token: {} } as unknown as SigningToken,
  );
  const answer = (address: string) =>
    answers.shift()!({ address, tokenKeyId: 'key-1' } as ManagedWalletEntity);
  return { keys, wallets, answer };
}

describe('WalletKeys', () => {
  it('gives signings that ask at the same moment one read of the wallet', async () => {
    const { keys, wallets, answer } = keysOver();
    const signers = [1, 2, 3].map(() => keys.withSolanaKey(ACCOUNT, async (key) => key.address));
    expect(wallets.findForAccount).toHaveBeenCalledTimes(1);
    answer('Wallet111');
    expect(await Promise.all(signers)).toEqual(['Wallet111', 'Wallet111', 'Wallet111']);
  });

  it('reads the wallet again for a signing that asks after the read was answered', async () => {
    const { keys, wallets, answer } = keysOver();
    const first = keys.withSolanaKey(ACCOUNT, async (key) => key.address);
    answer('Before');
    expect(await first).toBe('Before');
    const second = keys.withSolanaKey(ACCOUNT, async (key) => key.address);
    expect(wallets.findForAccount).toHaveBeenCalledTimes(2);
    answer('After');
    expect(await second).toBe('After');
  });

  it('reads each family of an account apart', async () => {
    const { keys, wallets, answer } = keysOver();
    const solana = keys.withSolanaKey(ACCOUNT, async (key) => key.address);
    const evm = keys.withEvmKey(ACCOUNT, async (key) => key.address);
    expect(wallets.findForAccount.mock.calls).toEqual([
      [ACCOUNT, 'solana'],
      [ACCOUNT, 'evm'],
    ]);
    answer('SolanaWallet');
    answer('0xevm');
    expect(await Promise.all([solana, evm])).toEqual(['SolanaWallet', '0xevm']);
  });
});
