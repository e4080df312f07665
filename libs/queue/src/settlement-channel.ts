import { Injectable } from '@nestjs/common';
import { SETTLED_CHANNEL } from './operation-jobs';
import { RedisChannel } from './redis-channel';

/**
 * "Operation X settled", from the worker to the API instances waiting for it. Whoever waits
 * re-reads Postgres, and also polls it.
 */
@Injectable()
export class SettlementChannel extends RedisChannel {
  protected readonly topic = SETTLED_CHANNEL;
}
