import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ConfigModule, type AppConfig } from '@app/config';
import { ChainsModule } from '@app/chains';
import { DatabaseModule } from '@app/database';
import { IssuanceModule } from '@app/domain';
import { QueueModule } from '@app/queue';
import { AccountWalletsController } from './account/account-wallets.controller';
import { AccountController } from './account/account.controller';
import { NetworksController } from './networks/networks.controller';
import { AccountAssetsController } from './account/account-assets.controller';
import { UsageController } from './account/usage.controller';
import { SigningPolicyController } from './account/signing-policy.controller';
import { AuditController } from './audit/audit.controller';
import { AirdropsController } from './batches/airdrops.controller';
import { BatchesController } from './batches/batches.controller';
import { AuthGuard } from './auth/auth.guard';
import { DashboardController } from './dashboard/dashboard.controller';
import { EventStreams } from './events/event-streams';
import { EventsController } from './events/events.controller';
import { HealthController } from './health/health.controller';
import { HealthService } from './health/health.service';
import { AccountLaneInterceptor } from './http/account-lane.interceptor';
import { BodyValidationPipe } from './http/body-validation.pipe';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { ShutdownDrain } from './http/shutdown-drain';
import { MetadataController } from './metadata/metadata.controller';
import { NftsController } from './nfts/nfts.controller';
import { OperationResponder } from './operations/operation-responder';
import { OperationsController } from './operations/operations.controller';
import { AuthThrottle } from './rate-limit/auth-throttle';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitService } from './rate-limit/rate-limit.service';
import { TokensController } from './tokens/tokens.controller';
import { WalletsController } from './wallets/wallets.controller';
import { WebhooksController } from './webhooks/webhooks.controller';

@Module({
  imports: [DatabaseModule, QueueModule, ChainsModule, IssuanceModule],
  controllers: [
    AccountController,
    AccountWalletsController,
    WalletsController,
    TokensController,
    NftsController,
    AirdropsController,
    BatchesController,
    OperationsController,
    MetadataController,
    HealthController,
    DashboardController,
    AuditController,
    UsageController,
    SigningPolicyController,
    NetworksController,
    AccountAssetsController,
    EventsController,
    WebhooksController,
  ],
  providers: [
    HealthService,
    ShutdownDrain,
    OperationResponder,
    EventStreams,
    { provide: APP_FILTER, useClass: HttpExceptionFilter },
    { provide: APP_PIPE, useClass: BodyValidationPipe },
    RateLimitService,
    AuthThrottle,
    { provide: APP_GUARD, useClass: AuthGuard },
    // After the AuthGuard (guards run in registration order): it limits per authenticated key.
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_INTERCEPTOR, useClass: AccountLaneInterceptor },
  ],
})
export class AppModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return { module: AppModule, imports: [ConfigModule.forRoot(config)] };
  }
}
