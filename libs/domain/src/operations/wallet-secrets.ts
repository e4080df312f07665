import { Injectable } from '@nestjs/common';
import type { ChainFamily } from '@app/config';
import { ManagedWalletRepository } from '@app/database';
import { SecretBox } from '../security/secret-box';

/**
 * Opens (decrypts) an account's managed wallet secret for the moment of signing, and wipes it
 * after; it is never cached. The signing itself is the chain adapter's.
 */
@Injectable()
export class WalletSecrets {
  constructor(
    private readonly wallets: ManagedWalletRepository,
    private readonly secretBox: SecretBox,
  ) {}

  async withSecret<T>(
    accountId: string,
    family: ChainFamily,
    use: (secret: Uint8Array, address: string) => Promise<T>,
  ): Promise<T> {
    const wallet = await this.wallets.findForAccount(accountId, family);
    if (!wallet) throw new Error(`Account ${accountId} has no managed ${family} wallet`);
    const secret = this.secretBox.open(
      { ciphertext: wallet.secretCiphertext, keyId: wallet.secretKeyId },
      wallet.address,
    );
    try {
      return await use(secret, wallet.address);
    } finally {
      secret.fill(0);
    }
  }
}
