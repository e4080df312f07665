import { Injectable } from '@nestjs/common';
import { RedisChannel } from './redis-channel';

/**
 * "Account X's signing policies changed", to every API and worker process, so that each drops
 * the account's cached policy at once. The cache's time to live bounds the staleness if a
 * message is lost.
 */
@Injectable()
export class SigningPolicyChanges extends RedisChannel {
  protected readonly topic = 'signing-policies:changed';
}
