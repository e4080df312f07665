import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { RedisConnection } from '@app/queue';
import { LIFECYCLE_CONTEXT } from '@app/common';
import { UnitOfWork } from '@app/database';
import { REDIS } from '@app/queue';

/** Refuses to start without Postgres and Redis: a worker that cannot persist must not take jobs. */
@Injectable()
export class WorkerReadiness implements OnApplicationBootstrap {
  private readonly logger = new Logger(LIFECYCLE_CONTEXT);

  constructor(
    private readonly database: UnitOfWork,
    @Inject(REDIS) private readonly redis: RedisConnection,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.database.ping();
    await this.redis.ping();
    this.logger.log('Worker ready: Postgres and Redis connected.');
  }
}
