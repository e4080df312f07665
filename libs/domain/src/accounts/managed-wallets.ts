import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type ChainFamily } from '@app/config';
import { newId } from '@app/common';
import { ChainRegistry, NetworkRegistry } from '@app/chains';
import type { ManagedWalletEntity } from '@app/database';
import { SecretBox } from '../security/secret-box';

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
  ) {}

  generate(accountId: string): ManagedWalletEntity[] {
    return FAMILIES.map((family) => {
      const wallet = this.chains.adapter(family).generateWallet();
      const sealed = this.secretBox.seal(wallet.secretBytes, wallet.publicKey);
      wallet.secretBytes.fill(0);
      return {
        id: newId(),
        accountId,
        family,
        address: wallet.publicKey,
        secretCiphertext: sealed.ciphertext,
        secretKeyId: sealed.keyId,
        createdAt: new Date(),
      };
    });
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
