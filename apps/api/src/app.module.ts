import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ConfigModule, type AppConfig } from '@app/config';
import { ChainsModule } from '@app/chains';
import { DatabaseModule } from '@app/database';
import { DomainModule } from '@app/domain';
import { RedisModule } from '@app/queue';
import { AccountController } from './account/account.controller';
import { AuthGuard } from './auth/auth.guard';
import { HealthController } from './health/health.controller';
import { HealthService } from './health/health.service';
import { BodyValidationPipe } from './http/body-validation.pipe';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { WalletsController } from './wallets/wallets.controller';

@Module({
  imports: [DatabaseModule, RedisModule, ChainsModule, DomainModule],
  controllers: [AccountController, WalletsController, HealthController],
  providers: [
    HealthService,
    { provide: APP_FILTER, useClass: HttpExceptionFilter },
    { provide: APP_PIPE, useClass: BodyValidationPipe },
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
})
export class AppModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return { module: AppModule, imports: [ConfigModule.forRoot(config)] };
  }
}
