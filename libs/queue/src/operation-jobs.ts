import type { ConcreteNetwork } from '@app/config';

/**
 * The one job of the pipeline: carry an operation forward. It carries the operation's id (and
 * the id of the HTTP request that made it, for the logs) only; the worker reloads everything
 * else from Postgres. The job id is the operation id, so adding it twice is a no-op.
 */
export const EXECUTE_OPERATION = 'execute-operation';

export interface OperationJobData {
  operationId: string;
  /** The account and network the operation counts against (absent on jobs of older releases). */
  accountId?: string;
  network?: ConcreteNetwork;
  /** Absent when the reconciler, not a request, enqueued the operation. */
  requestId?: string;
}

/**
 * The job that packs an airdrop's entries into carriers (AirdropPacker), on the queue of the
 * batch's signer; its id is `pack-<batch id>`, so a batch has one such job waiting at a time.
 */
export const PACK_BATCH = 'pack-batch';

export interface PackBatchJobData {
  batchId: string;
  accountId: string;
  network: ConcreteNetwork;
}

export type QueueJobData = OperationJobData | PackBatchJobData;

export function isPackBatchJob(data: QueueJobData): data is PackBatchJobData {
  return 'batchId' in data;
}

/** What the producer needs of an operation: its id (the job id), network, account (its share) and signer (its shard). */
export interface QueuedOperation {
  id: string;
  network: ConcreteNetwork;
  accountId: string;
  signer: string;
}

/**
 * Queues per network (WORKER_NETWORKS pins workers to networks), each network split into
 * QUEUE_SHARDS shards by signer (`queueShardOf`), so that one worker at a time serves a wallet.
 * The name is its own hash tag: all of a queue's keys share a Redis Cluster slot (BullMQ's scripts
 * touch several at once), and the queues spread over the cluster's nodes.
 */
export function operationQueueName(network: ConcreteNetwork, shard: number): string {
  return `{operations-${network}-${shard}}`;
}

/** Channel on which the worker announces that an operation settled (confirmed or failed). */
export const SETTLED_CHANNEL = 'operations:settled';
