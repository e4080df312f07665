import { Injectable } from '@nestjs/common';
import { RedisChannel } from './redis-channel';

/**
 * "API key X was revoked", to every API instance, so that each drops the key from its cache at
 * once. The cache's time to live bounds the staleness if a message is lost.
 */
@Injectable()
export class ApiKeyRevocations extends RedisChannel {
  protected readonly topic = 'api-keys:revoked';
}
