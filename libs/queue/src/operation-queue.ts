import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { LogContext } from '@app/common';
import { APP_CONFIG, type AppConfig, type ConcreteNetwork } from '@app/config';
import { EXECUTE_OPERATION, operationQueueName, type OperationJobData } from './operation-jobs';
import { redisDeadline } from './redis-deadline';

const JOB_OPTIONS = {
  removeOnComplete: true,
  // A job that used up its attempts is dropped: its operation is still unsettled in Postgres,
  // and the reconciler enqueues it again later.
  removeOnFail: true,
  attempts: 30,
  backoff: { type: 'capped' },
} as const;

/** Exponential from 250 ms, capped at 5 s, with jitter: a retried operation never sleeps long. */
export function operationRetryDelay(attemptsMade: number): number {
  const exponential = 250 * 2 ** Math.max(0, attemptsMade - 1);
  return Math.min(exponential, 5_000) * (0.75 + Math.random() * 0.5);
}

/** The producer side: puts operation ids on their network's queue. */
@Injectable()
export class OperationQueue implements OnApplicationShutdown {
  private readonly queues = new Map<ConcreteNetwork, Queue<OperationJobData>>();
  private connection?: Redis;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * Puts the operation's job on its queue, or fails within REDIS_TIMEOUT_MS (Redis away, or
   * still connecting): the caller keeps the operation in Postgres for the reconciler.
   */
  async enqueue(operation: { id: string; network: ConcreteNetwork }): Promise<void> {
    const added = this.queue(operation.network).add(
      EXECUTE_OPERATION,
      { operationId: operation.id, requestId: LogContext.current()?.requestId },
      { ...JOB_OPTIONS, jobId: operation.id },
    );
    await redisDeadline(added, this.config.queue.redisTimeoutMs, 'take the job');
  }

  queue(network: ConcreteNetwork): Queue<OperationJobData> {
    let queue = this.queues.get(network);
    if (!queue) {
      queue = LogContext.outside(() => {
        // No offline queue: while Redis is away a command fails at once instead of waiting
        // for a reconnect (and piling up in memory); the reconciler enqueues later.
        this.connection ??= new Redis(this.config.redisUrl, {
          maxRetriesPerRequest: 2,
          enableOfflineQueue: false,
        });
        return new Queue<OperationJobData>(operationQueueName(network), {
          connection: this.connection,
          prefix: this.config.queue.prefix,
        });
      });
      this.queues.set(network, queue);
    }
    return queue;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await this.connection?.quit().catch(() => undefined);
  }
}
