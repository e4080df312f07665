import type { BatchCounts, BatchEntity } from '@app/database';

export type BatchStatus = 'queued' | 'running' | 'completed' | 'completed_with_failures';

/**
 * A batch as GET /batches/{id} shows it (contract, "Airdrops"). It lives in the domain, not among
 * the API's presenters, because both processes render it: the API for its routes, the worker
 * for the `batch.completed` event.
 */
export interface BatchView {
  batch_id: string;
  kind: BatchEntity['kind'];
  status: BatchStatus;
  network: string;
  asset: string;
  total: number;
  counts: BatchCounts;
  created_at: string;
  completed_at?: string;
}

export function batchView(batch: BatchEntity, counts: BatchCounts): BatchView {
  return {
    batch_id: batch.id,
    kind: batch.kind,
    status: batchStatus(batch, counts),
    network: batch.network,
    asset: batch.asset,
    total: batch.total,
    counts,
    created_at: batch.createdAt.toISOString(),
    ...(batch.completedAt ? { completed_at: batch.completedAt.toISOString() } : {}),
  };
}

function batchStatus(batch: BatchEntity, counts: BatchCounts): BatchStatus {
  if (batch.status !== 'open') return batch.status;
  return counts.queued === batch.total ? 'queued' : 'running';
}
