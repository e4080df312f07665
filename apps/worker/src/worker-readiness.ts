import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { LIFECYCLE_CONTEXT } from '@app/common';
import { REDIS } from '@app/queue';

/** Refuses to start without Postgres and Redis: a worker that cannot persist must not take jobs. */
@Injectable()
export class WorkerReadiness implements OnApplicationBootstrap {
  private readonly logger = new Logger(LIFECYCLE_CONTEXT);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.dataSource.query('SELECT 1');
    await this.redis.ping();
    this.logger.log('Worker ready: Postgres and Redis connected.');
  }
}
