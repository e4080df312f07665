import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { connectionReady, redisClient, type RedisConnection } from './redis-client';
import { LogContext } from '@app/common';
import { APP_CONFIG, CONCRETE_NETWORKS, type AppConfig, type ConcreteNetwork } from '@app/config';
import { AccountBacklog } from './account-backlog';
import { fairSharePriority, joinsLine, linedDelayMs } from './account-scheduling';
import {
  EXECUTE_OPERATION,
  PACK_BATCH,
  operationQueueName,
  type QueueJobData,
  type QueuedOperation,
} from './operation-jobs';
import { queueShardOf } from './queue-shard';
import { redisDeadline } from './redis-deadline';

const JOB_OPTIONS = {
  removeOnComplete: true,
  // A job that used up its attempts is dropped: its operation is still unsettled in Postgres,
  // and the reconciler enqueues it again later.
  removeOnFail: true,
  attempts: 30,
  backoff: { type: 'capped' },
} as const;

/** The name of the error an operation retries with while its wallet cannot pay for it. */
export const AWAITING_FUNDS = 'AwaitingFunds';
const RETRY_CAP_MS = 5_000;
/** A wallet is funded by a person or a top-up job: minutes, not milliseconds. */
const AWAITING_FUNDS_RETRY_CAP_MS = 15_000;

/**
 * Exponential from 250 ms, capped at 5 s, with jitter: a retried operation never sleeps long.
 * One waiting for its wallet's funds backs off to 15 s: each retry asks a node again.
 */
export function operationRetryDelay(
  attemptsMade: number,
  _type?: string,
  error?: { name?: string },
): number {
  const cap = error?.name === AWAITING_FUNDS ? AWAITING_FUNDS_RETRY_CAP_MS : RETRY_CAP_MS;
  const exponential = 250 * 2 ** Math.max(0, attemptsMade - 1);
  return Math.min(exponential, cap) * (0.75 + Math.random() * 0.5);
}

/**
 * The producer side: puts operation ids on their queue, the shard of their network that their
 * signer's operations all go to (so one worker at a time serves a wallet).
 */
@Injectable()
export class OperationQueue implements OnApplicationShutdown {
  /** By queue name. */
  private readonly queues = new Map<string, Queue<QueueJobData>>();
  private connection?: RedisConnection;
  private accountBacklog?: AccountBacklog;
  /** `jobsKeptKeys`, made on first use. */
  private jobsKeptMarks?: string[];

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * Puts the operation's job on its queue, at its place in its account's backlog (the fair-share
   * priority), or in its account's line for a slot (joinsLine), or fails within REDIS_TIMEOUT_MS
   * (Redis away, or still connecting): the caller keeps the operation in Postgres for the
   * reconciler.
   */
  async enqueue(operation: QueuedOperation, ahead = 0): Promise<void> {
    await redisDeadline(
      this.add(operation, ahead),
      this.config.queue.redisTimeoutMs,
      'take the job',
    );
  }

  /**
   * `ahead`: jobs of the same account the caller is queueing before this one, which will hold
   * slots first (a packed airdrop's carriers, queued together).
   */
  private async add(operation: QueuedOperation, ahead: number): Promise<void> {
    const { id, network, accountId } = operation;
    const queue = this.queueOf(operation);
    // Without an offline queue, a command sent before the connection is up fails at once. Once
    // ready, BullMQ's own wait resolves at once even while the connection is reconnecting (a
    // Redis failover): wait for it to be up again, within the caller's REDIS_TIMEOUT_MS.
    await queue.waitUntilReady();
    await connectionReady(this.connect());
    const backlog = this.backlog();
    const { pending, inFlight } = await backlog.register(network, accountId, id);
    const { weights, maxInFlight, overCapDelayMs } = this.config.scheduling;
    // An account far over its cap: the job waits in its account's line (delayed), and a freed
    // slot brings it to the queue, rather than it being fetched only to be put back.
    const lined = joinsLine(pending, inFlight, maxInFlight, ahead);
    await queue.add(
      EXECUTE_OPERATION,
      { operationId: id, accountId, network, requestId: LogContext.current()?.requestId },
      {
        ...JOB_OPTIONS,
        jobId: id,
        priority: fairSharePriority(pending, weights[accountId] ?? 1),
        ...(lined ? { delay: linedDelayMs(pending, maxInFlight, overCapDelayMs) } : {}),
      },
    );
    if (lined) await backlog.lineUp(network, accountId, { queueName: queue.name, jobId: id });
  }

  /**
   * Puts the job that packs a batch's entries into carriers on the queue of its signer (one
   * waiting job per batch), or fails within REDIS_TIMEOUT_MS: the reconciler packs it later.
   */
  async enqueuePack(batch: QueuedOperation): Promise<void> {
    const queue = this.queueOf(batch);
    const job = queue
      .waitUntilReady()
      .then(() =>
        queue.add(
          PACK_BATCH,
          { batchId: batch.id, accountId: batch.accountId, network: batch.network },
          { ...JOB_OPTIONS, jobId: `pack-${batch.id}` },
        ),
      );
    await redisDeadline(job, this.config.queue.redisTimeoutMs, 'take the packing job');
  }

  /**
   * False when Redis has lost some queue's data since the marks were last set (FLUSHALL, a
   * failover to a replica that had not caught up, a restart without persistence), seen as the
   * loss of a mark kept in each queue's hash slot (`markJobsKept`): on a Cluster, a node that
   * lost its data is seen whichever it is. Also false on a new Redis, and on one whose queues
   * have other names (a key layout of an earlier version).
   */
  async jobsKept(): Promise<boolean> {
    const connection = this.connect();
    const found = await redisDeadline(
      connectionReady(connection).then(() => this.sendToEveryMark((key) => ['exists', key])),
      this.config.queue.redisTimeoutMs,
      'check the queues are kept',
    );
    return found.every((exists) => exists === 1);
  }

  /** Sets the marks `jobsKept` looks for: every unsettled operation has a job again. */
  async markJobsKept(): Promise<void> {
    const now = String(Date.now());
    await redisDeadline(
      this.sendToEveryMark((key) => ['set', key, now]),
      this.config.queue.redisTimeoutMs,
      'mark the queues kept',
    );
  }

  /**
   * Sends `command` (name and arguments) for every mark at once: resolves with their replies, in
   * the marks' order, or rejects with the first error.
   */
  private async sendToEveryMark(command: (key: string) => string[]): Promise<unknown[]> {
    const connection = this.connect();
    const commands = this.jobsKeptKeys().map(command);
    // A Cluster's pipeline must stay on one node, and the marks are in every queue's slot: there
    // each goes on its own (all at once) to the node serving it.
    if (connection.isCluster) {
      return Promise.all(commands.map(([name, ...args]) => connection.call(name, ...args)));
    }
    const replies = await connection.pipeline(commands).exec();
    if (!replies) throw new Error('Redis discarded the pipeline');
    return replies.map(([error, reply]) => {
      if (error) throw error;
      return reply;
    });
  }

  /** One mark per operation queue, in its slot (the queue's name is its hash tag). */
  private jobsKeptKeys(): string[] {
    this.jobsKeptMarks ??= CONCRETE_NETWORKS.flatMap((network) =>
      Array.from(
        { length: this.config.queue.shards },
        (_, shard) => `${this.config.queue.prefix}:jobs-kept:${operationQueueName(network, shard)}`,
      ),
    );
    return this.jobsKeptMarks;
  }

  private backlog(): AccountBacklog {
    this.accountBacklog ??= new AccountBacklog(this.connect(), this.config.queue.prefix);
    return this.accountBacklog;
  }

  /** The queue of an operation: its network's shard of its signer. */
  private queueOf(operation: QueuedOperation): Queue<QueueJobData> {
    return this.queue(operation.network, queueShardOf(operation.signer, this.config.queue.shards));
  }

  /** Every shard queue of a network (for the admin board and the queue depth metrics). */
  networkQueues(network: ConcreteNetwork): Queue<QueueJobData>[] {
    return Array.from({ length: this.config.queue.shards }, (_, shard) =>
      this.queue(network, shard),
    );
  }

  private queue(network: ConcreteNetwork, shard: number): Queue<QueueJobData> {
    const name = operationQueueName(network, shard);
    let queue = this.queues.get(name);
    if (!queue) {
      queue = LogContext.outside(
        () =>
          new Queue<QueueJobData>(name, {
            connection: this.connect(),
            prefix: this.config.queue.prefix,
          }),
      );
      this.queues.set(name, queue);
    }
    return queue;
  }

  private connect(): RedisConnection {
    // No offline queue: while Redis is away a command fails at once instead of waiting for a
    // reconnect (and piling up in memory); the reconciler enqueues later.
    this.connection ??= LogContext.outside(() =>
      redisClient(this.config, { maxRetriesPerRequest: 2, enableOfflineQueue: false }),
    );
    return this.connection;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await this.connection?.quit().catch(() => undefined);
  }
}
