import { Global, Module } from '@nestjs/common';
import { ApiKeyRevocations } from './api-key-revocations';
import { OperationQueue } from './operation-queue';
import { RedisModule } from './redis.module';
import { SettlementChannel } from './settlement-channel';

@Global()
@Module({
  imports: [RedisModule],
  providers: [OperationQueue, SettlementChannel, ApiKeyRevocations],
  exports: [RedisModule, OperationQueue, SettlementChannel, ApiKeyRevocations],
})
export class QueueModule {}
