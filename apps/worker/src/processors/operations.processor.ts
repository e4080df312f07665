import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import { LogContext, METRICS, boundedText } from '@app/common';
import { APP_CONFIG, NETWORKS, type AppConfig, type ConcreteNetwork } from '@app/config';
import { OperationRunner, RetryLater } from '@app/domain';
import {
  EXECUTE_OPERATION,
  operationQueueName,
  operationRetryDelay,
  type OperationJobData,
} from '@app/queue';

/** Error text in a log line: some errors embed whole transactions. */
const LOGGED_ERROR_MAX = 500;

/** Takes operation jobs from the queues of this worker's networks (WORKER_NETWORKS). */
@Injectable()
export class OperationsProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OperationsProcessor');
  private readonly workers: Worker<OperationJobData>[] = [];
  private readonly connections: Redis[] = [];
  private readonly handlers: Record<string, (job: Job<OperationJobData>) => Promise<void>> = {
    [EXECUTE_OPERATION]: (job) => this.runner.run(job.data.operationId),
  };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runner: OperationRunner,
  ) {}

  onApplicationBootstrap(): void {
    for (const network of this.networks()) {
      const worker = new Worker<OperationJobData>(
        operationQueueName(network),
        (job) =>
          LogContext.run(
            {
              requestId: job.data.requestId,
              operationId: job.data.operationId,
              jobId: job.id,
              queue: job.queueName,
              attempt: job.attemptsMade + 1,
            },
            () => this.handle(job),
          ),
        {
          // BullMQ leaves a connection it was given open: closed by us after the worker.
          connection: this.newConnection(),
          prefix: this.config.queue.prefix,
          concurrency: this.config.worker.concurrency,
          // A job whose worker died is picked up again once its lock lapses.
          lockDuration: this.config.worker.jobLockMs,
          stalledInterval: Math.max(250, Math.floor(this.config.worker.jobLockMs / 2)),
          maxStalledCount: 1_000,
          settings: { backoffStrategy: operationRetryDelay },
        },
      );
      worker.on('error', (error) =>
        this.logger.error(`Queue ${network}: ${boundedText(error.message, LOGGED_ERROR_MAX)}`),
      );
      this.workers.push(worker);
    }
    this.logger.log(`Taking operations of: ${this.networks().join(', ')}`);
  }

  private async handle(job: Job<OperationJobData>): Promise<void> {
    const handler = this.handlers[job.name];
    if (!handler) throw new Error(`No handler for job ${job.name}`);
    const timer = METRICS.jobDuration.startTimer({ queue: job.queueName });
    this.logger.debug('Job started');
    try {
      await handler(job);
      timer({ outcome: 'completed' });
    } catch (error) {
      timer({ outcome: 'retried' });
      // The runner has logged a RetryLater already (warn for an operation's first attempts).
      const level = error instanceof RetryLater ? 'debug' : 'warn';
      this.logger[level](`Job will be retried: ${boundedText(error, LOGGED_ERROR_MAX)}`);
      throw error;
    }
  }

  private newConnection(): Redis {
    const connection = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null });
    this.connections.push(connection);
    return connection;
  }

  private networks(): ConcreteNetwork[] {
    const chosen = this.config.worker.networks;
    return chosen === 'all' ? NETWORKS.filter((n): n is ConcreteNetwork => n !== 'evm') : chosen;
  }

  /**
   * On SIGTERM: stop taking jobs and let the running ones finish (BullMQ's graceful close),
   * before Postgres and Redis are closed by the later shutdown hooks.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    for (const connection of this.connections) connection.disconnect();
  }
}
