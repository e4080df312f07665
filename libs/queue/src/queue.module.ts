import { Global, Module } from '@nestjs/common';
import type { RedisConnection } from './redis-client';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AccountBacklog } from './account-backlog';
import { ApiKeyRevocations } from './api-key-revocations';
import { OperationQueue } from './operation-queue';
import { REDIS, RedisModule } from './redis.module';
import { SettlementChannel } from './settlement-channel';
import { SigningPolicyChanges } from './signing-policy-changes';
import { WebhookQueue } from './webhook-queue';

@Global()
@Module({
  imports: [RedisModule],
  providers: [
    OperationQueue,
    SettlementChannel,
    ApiKeyRevocations,
    SigningPolicyChanges,
    WebhookQueue,
    {
      provide: AccountBacklog,
      inject: [REDIS, APP_CONFIG],
      useFactory: (redis: RedisConnection, config: AppConfig) =>
        new AccountBacklog(redis, config.queue.prefix),
    },
  ],
  exports: [
    RedisModule,
    OperationQueue,
    SettlementChannel,
    ApiKeyRevocations,
    SigningPolicyChanges,
    WebhookQueue,
    AccountBacklog,
  ],
})
export class QueueModule {}
