import { Global, Module } from '@nestjs/common';
import { ApiKeyRevocations } from './api-key-revocations';
import { OperationQueue } from './operation-queue';
import { RedisModule } from './redis.module';
import { SettlementChannel } from './settlement-channel';
import { WebhookQueue } from './webhook-queue';

@Global()
@Module({
  imports: [RedisModule],
  providers: [OperationQueue, SettlementChannel, ApiKeyRevocations, WebhookQueue],
  exports: [RedisModule, OperationQueue, SettlementChannel, ApiKeyRevocations, WebhookQueue],
})
export class QueueModule {}
