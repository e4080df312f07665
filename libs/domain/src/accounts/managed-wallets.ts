import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type ChainFamily } from '@app/config';
import { newId } from '@app/common';
import { ChainRegistry, NetworkRegistry } from '@app/chains';
import type { ManagedWalletEntity } from '@app/database';
import { computeAddress } from 'ethers';
import bs58 from 'bs58';
import { SecretBox } from '../security/secret-box';
import { SigningToken } from '../security/signing-token';

const FAMILIES: readonly ChainFamily[] = ['solana', 'evm'];

/** Makes an account's managed wallets (one per chain family) and funds them on local chains. */
@Injectable()
export class ManagedWallets {
  private readonly logger = new Logger(ManagedWallets.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly chains: ChainRegistry,
    private readonly networks: NetworkRegistry,
    private readonly secretBox: SecretBox,
    private readonly signingToken: SigningToken,
  ) {}

  /**
   * New keys for the account's wallets: made here and sealed under the master key, or (pkcs11)
   * made in the token, which keeps them; the row then holds only the token's id of the key. A
   * registration that fails after this discards them (`discard`).
   */
  generate(accountId: string): Promise<ManagedWalletEntity[]> {
    return Promise.all(
      FAMILIES.map(async (family) => {
        const row = { id: newId(), accountId, family, createdAt: new Date() };
        if (this.config.signer.backend === 'pkcs11') {
          return {
            ...row,
            ...(await this.inToken(family, accountId)),
            secretCiphertext: null,
            dataKey: null,
            secretKeyId: null,
          };
        }
        const wallet = this.chains.adapter(family).generateWallet();
        const sealed = this.secretBox.sealEnveloped(wallet.secretBytes, wallet.publicKey);
        wallet.secretBytes.fill(0);
        return {
          ...row,
          address: wallet.publicKey,
          secretCiphertext: sealed.ciphertext,
          dataKey: sealed.wrappedKey,
          secretKeyId: sealed.keyId,
          tokenKeyId: null,
        };
      }),
    );
  }

  private async inToken(
    family: ChainFamily,
    accountId: string,
  ): Promise<{ address: string; tokenKeyId: string }> {
    const type = family === 'evm' ? 'secp256k1' : 'ed25519';
    const key = await this.signingToken.token.generate(type, `ais ${family} ${accountId}`);
    const address =
      family === 'evm'
        ? computeAddress(`0x${key.publicKey}`)
        : bs58.encode(Buffer.from(key.publicKey, 'hex'));
    return { address, tokenKeyId: key.id };
  }

  /**
   * Destroys the token's keys of wallets that were never stored (a registration refused or cut
   * short after `generate`): a retried or repeated registration must not pile keys up in the
   * token. Sealed local keys were never stored anywhere: nothing to do.
   */
  async discard(wallets: readonly ManagedWalletEntity[]): Promise<void> {
    for (const wallet of wallets) {
      if (wallet.tokenKeyId) await this.signingToken.token.destroy(wallet.tokenKeyId);
    }
  }

  /** Local profile only. A chain that is down does not fail a registration; it is logged. */
  async fund(wallets: readonly ManagedWalletEntity[]): Promise<void> {
    if (!this.config.chains.fundManagedWallets) return;
    await Promise.all(
      wallets.map(async (wallet) => {
        const network = this.networks.resolve(wallet.family === 'solana' ? 'solana' : 'evm');
        try {
          await this.chains.adapter(wallet.family).fundForDevelopment(network, wallet.address);
        } catch (error) {
          this.logger.warn(
            `Could not fund managed ${wallet.family} wallet ${wallet.address}: ${String(error)}`,
          );
        }
      }),
    );
  }
}
