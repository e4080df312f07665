import { Module } from '@nestjs/common';
import { AccountService } from './accounts/account.service';
import { ApiKeyService } from './accounts/api-key.service';
import { ManagedWallets } from './accounts/managed-wallets';
import { secretBoxProvider } from './security/secret-box.provider';
import { WalletService } from './wallets/wallet.service';

const SERVICES = [AccountService, ApiKeyService, ManagedWallets, WalletService];

/** The use cases. Needs ConfigModule, DatabaseModule and ChainsModule loaded by the app. */
@Module({
  providers: [secretBoxProvider, ...SERVICES],
  exports: [secretBoxProvider, ...SERVICES],
})
export class DomainModule {}
