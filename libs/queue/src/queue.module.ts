import { Global, Module } from '@nestjs/common';
import { OperationQueue } from './operation-queue';
import { RedisModule } from './redis.module';
import { SettlementChannel } from './settlement-channel';

@Global()
@Module({
  imports: [RedisModule],
  providers: [OperationQueue, SettlementChannel],
  exports: [RedisModule, OperationQueue, SettlementChannel],
})
export class QueueModule {}
