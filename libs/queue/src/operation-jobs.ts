import type { ConcreteNetwork } from '@app/config';

/**
 * The one job of the pipeline: carry an operation forward. It carries the operation's id (and
 * the id of the HTTP request that made it, for the logs) only; the worker reloads everything
 * else from Postgres. The job id is the operation id, so adding it twice is a no-op.
 */
export const EXECUTE_OPERATION = 'execute-operation';

export interface OperationJobData {
  operationId: string;
  /** Absent when the reconciler, not a request, enqueued the operation. */
  requestId?: string;
}

/** One queue per network, so workers can be pinned to networks (WORKER_NETWORKS). */
export function operationQueueName(network: ConcreteNetwork): string {
  return `operations-${network}`;
}

/** Channel on which the worker announces that an operation settled (confirmed or failed). */
export const SETTLED_CHANNEL = 'operations:settled';
