import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { RedisConnection } from '@app/queue';
import { LogContext, METRICS, boundedText } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { QueryPriority } from '@app/database';
import { AirdropPacker, CheckLater, OperationRunner, RetryLater } from '@app/domain';
import {
  EXECUTE_OPERATION,
  FIRST_PRIORITY,
  PACK_BATCH,
  REDIS,
  ShardLeaseKeeper,
  ShardLeases,
  closeWorker,
  operationQueueName,
  isPackBatchJob,
  operationRetryDelay,
  type OperationJobData,
  type LineEntry,
  type QueueJobData,
  type ShardRef,
  redisClient,
} from '@app/queue';
import { ConnectionWatchdog } from '../connection-watchdog';
import { AccountSlots } from '../scheduling/account-slots';
import { QueueConcurrency } from '../scheduling/queue-concurrency';
import { requeueOrphanedJobs } from './orphaned-jobs';
import { parkCheck } from './parked-check';
import { handOverSlot } from './slot-handover';
import { workerId } from '../worker-id';
import { workerNetworks } from '../worker-networks';

/** Error text in a log line: some errors embed whole transactions. */
const LOGGED_ERROR_MAX = 500;

/**
 * Takes operation jobs from the queues of this worker's networks (WORKER_NETWORKS): from the
 * shards whose lease it holds (its share of each network's QUEUE_SHARDS), one BullMQ Worker each.
 * The Workers are built by hand, not by @nestjs/bullmq: they start and stop as leases move
 * between processes, where @nestjs/bullmq makes one Worker per decorated class for the life of
 * the process, with options fixed when the class is declared.
 */
@Injectable()
export class OperationsProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OperationsProcessor');
  /** The BullMQ Worker of each shard this worker consumes, by queue name. */
  private readonly workers = new Map<string, Worker<QueueJobData>>();
  /** The jobs in flight of each of those Workers, by queue name. */
  private readonly concurrency = new Map<string, QueueConcurrency>();
  /** Shared by the shards' Workers for their non-blocking commands (each adds a blocking one). */
  private connection?: RedisConnection;
  private leases?: ShardLeaseKeeper;
  private readonly handlers: Record<string, (job: Job<QueueJobData>) => Promise<void>> = {
    [EXECUTE_OPERATION]: (job) => this.runner.run((job.data as OperationJobData).operationId),
    [PACK_BATCH]: (job) => this.packer.pack((job.data as { batchId: string }).batchId),
  };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runner: OperationRunner,
    private readonly packer: AirdropPacker,
    @Inject(REDIS) private readonly redis: RedisConnection,
    private readonly slots: AccountSlots,
    private readonly watchdog: ConnectionWatchdog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { prefix, shards, leaseTtlMs: ttlMs } = this.config.queue;
    this.leases = new ShardLeaseKeeper(
      new ShardLeases(this.redis, {
        prefix,
        workerId: workerId(this.config.worker.replica),
        replica: this.config.worker.replica,
        ttlMs,
      }),
      // A shard given back changes hands within the lease time, as a dead worker's does.
      { networks: workerNetworks(this.config), shards, ttlMs, handOverAfterMs: ttlMs },
      {
        start: (shard, orphaned) => this.startShard(shard, orphaned),
        stop: (shard, graceful) => this.stopShard(shard, graceful),
      },
      new Logger('ShardLeases'),
    );
    await this.leases.start();
    this.logger.log(`Taking operations of: ${workerNetworks(this.config).join(', ')}`);
  }

  private async startShard({ network, shard }: ShardRef, orphaned: boolean): Promise<void> {
    const name = operationQueueName(network, shard);
    if (!this.connection) {
      this.connection = redisClient(this.config, { maxRetriesPerRequest: null });
      this.watchdog.watch('operation queues', this.connection);
    }
    if (orphaned) await this.takeBackOrphans(name, this.connection);
    const worker = new Worker<QueueJobData>(
      name,
      (job, token) =>
        LogContext.run(
          {
            ...(isPackBatchJob(job.data)
              ? { batchId: job.data.batchId }
              : { requestId: job.data.requestId, operationId: job.data.operationId }),
            jobId: job.id,
            queue: job.queueName,
            attempt: job.attemptsMade + 1,
          },
          () => this.handle(job, token),
        ),
      {
        // BullMQ leaves a connection it was given open: closed by us after the workers.
        connection: this.connection,
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
      this.logger.error(`Queue ${name}: ${boundedText(error.message, LOGGED_ERROR_MAX)}`),
    );
    this.workers.set(name, worker);
    this.concurrency.set(name, new QueueConcurrency(name, worker, this.config.worker));
  }

  /** A dead worker's running jobs on a queue this worker now owns: run again now (see there). */
  private async takeBackOrphans(queueName: string, connection: RedisConnection): Promise<void> {
    try {
      const requeued = await requeueOrphanedJobs(queueName, connection, this.config.queue.prefix);
      if (requeued > 0) {
        this.logger.warn(`Took back ${requeued} job(s) a dead worker left running on ${queueName}`);
      }
    } catch (error) {
      // Its jobs then come back as stalled once their locks lapse, as before.
      this.logger.warn(
        `Could not take back the orphaned jobs of ${queueName}: ${boundedText(error, LOGGED_ERROR_MAX)}`,
      );
    }
  }

  /** Graceful: the shard's running jobs finish first; otherwise it stops taking jobs at once. */
  private async stopShard({ network, shard }: ShardRef, graceful: boolean): Promise<void> {
    const name = operationQueueName(network, shard);
    const worker = this.workers.get(name);
    this.workers.delete(name);
    this.concurrency.delete(name);
    if (worker) await closeWorker(worker, !graceful, this.config.queue.redisTimeoutMs);
  }

  private async handle(job: Job<QueueJobData>, token?: string): Promise<void> {
    const handler = this.handlers[job.name];
    if (!handler) throw new Error(`No handler for job ${job.name}`);
    // Packing is brief and sends nothing: it takes none of its account's slots.
    if (isPackBatchJob(job.data)) return handler(job);
    const data = job.data;
    const slot = await this.slots.take(data, job.queueName);
    if (!slot.run) {
      // The account runs its cap of operations already: this one waits its turn, not counted
      // as an attempt.
      await job.moveToDelayed(Date.now() + slot.delayMs, token);
      throw new DelayedError();
    }
    const timer = METRICS.jobDuration.startTimer({ queue: job.queueName });
    const ended = this.concurrency.get(job.queueName)?.started();
    this.logger.debug('Job started');
    let completed = false;
    try {
      // An account's first pending operations (a light tenant's) wait for no flood's queries.
      await (job.opts.priority === FIRST_PRIORITY
        ? QueryPriority.first(() => handler(job))
        : handler(job));
      completed = true;
      timer({ outcome: 'completed' });
    } catch (error) {
      if (error instanceof CheckLater) {
        timer({ outcome: 'parked' });
        await parkCheck(job, token, error);
        throw new DelayedError();
      }
      timer({ outcome: 'retried' });
      // The runner has logged a RetryLater already (warn for an operation's first attempts).
      const level = error instanceof RetryLater ? 'debug' : 'warn';
      this.logger[level](`Job will be retried: ${boundedText(error, LOGGED_ERROR_MAX)}`);
      throw error;
    } finally {
      ended?.(completed);
      const first = await this.slots.release(data, completed);
      if (first) void this.handOver(data, first);
    }
  }

  /** The freed slot to the job first in its account's line (see handOverSlot); best effort. */
  private async handOver(data: OperationJobData, first: LineEntry): Promise<void> {
    try {
      await handOverSlot(
        first,
        () => this.slots.nextInLine(data),
        (queueName) => this.workers.get(queueName),
      );
    } catch (error) {
      this.logger.warn(`Slot not handed over: ${boundedText(error, LOGGED_ERROR_MAX)}`);
    }
  }

  /**
   * On SIGTERM: stop taking jobs and let the running ones finish (BullMQ's graceful close), then
   * give the shards' leases back so other workers take them at once; all before Postgres and
   * Redis are closed by the later shutdown hooks.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.leases?.stop();
    this.connection?.disconnect();
  }
}
