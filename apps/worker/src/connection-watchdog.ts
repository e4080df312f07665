import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { LIFECYCLE_CONTEXT } from '@app/common';
import { REDIS, type RedisConnection } from '@app/queue';
import { EndedConnectionGuard, type EndingConnection } from './ended-connections';

/**
 * The worker's Redis connections under an EndedConnectionGuard: one that ends for good while
 * the worker runs makes it exit with 1, for its supervisor to start it again (see there).
 */
@Injectable()
export class ConnectionWatchdog implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LIFECYCLE_CONTEXT);
  private readonly guard = new EndedConnectionGuard((name) => this.exit(name));

  constructor(@Inject(REDIS) private readonly redis: RedisConnection) {}

  onApplicationBootstrap(): void {
    this.watch('shared Redis', this.redis);
  }

  watch(name: string, connection: EndingConnection): void {
    this.guard.watch(name, connection);
  }

  beforeApplicationShutdown(): void {
    this.guard.stop();
  }

  private exit(name: string): void {
    this.logger.fatal(
      `The ${name} connection ended for good: exiting, for the supervisor to start this worker again`,
    );
    process.exit(1);
  }
}
