import type { AppConfig } from '@app/config';
import type { BatchRepository, OperationEntity, OperationRepository } from '@app/database';
import type { OperationQueue } from '@app/queue';
import type { OperationSettler } from './operation-settler';
import { Reconciler } from './reconciler';

const CONFIG = {
  worker: { reconcileAfterMs: 30_000, operationDeadlineMs: 600_000 },
} as AppConfig;

/** Postgres and Redis as the reconciler sees them: unsettled rows, a mark, queued jobs. */
function world(unsettled: number) {
  const rows = Array.from(
    { length: unsettled },
    (_, i) =>
      ({ id: `op-${i}`, status: 'signed', updatedAt: new Date(0) }) as unknown as OperationEntity,
  );
  const state = {
    kept: false,
    postgresDown: false,
    enqueued: [] as string[],
    cutoffs: [] as Date[],
  };
  const operations = {
    findStale: async (before: Date, limit: number) => {
      if (state.postgresDown) throw new Error('connect ECONNREFUSED');
      return rows.filter((row) => row.updatedAt < before).slice(0, limit);
    },
    touch: async (ids: string[]) => {
      for (const row of rows) if (ids.includes(row.id)) row.updatedAt = new Date();
    },
  } as unknown as OperationRepository;
  const queue = {
    jobsKept: async () => state.kept,
    markJobsKept: async () => {
      state.kept = true;
    },
    enqueue: async (operation: OperationEntity) => {
      state.enqueued.push(operation.id);
    },
  } as unknown as OperationQueue;
  const batches = {
    withUnpackedMembers: async () => [],
  } as unknown as BatchRepository;
  const reconciler = new Reconciler(CONFIG, operations, batches, queue, {} as OperationSettler);
  return { reconciler, state };
}

describe('Reconciler', () => {
  it('enqueues every unsettled operation at once when Redis lost its jobs, then marks them kept', async () => {
    const { reconciler, state } = world(1_200);
    expect(await reconciler.reconcile()).toBe(1_200);
    expect(new Set(state.enqueued).size).toBe(1_200);
    expect(state.kept).toBe(true);
    // Kept: the next run looks only at operations untouched for RECONCILE_AFTER_MS.
    expect(await reconciler.reconcile()).toBe(0);
  });

  it('leaves the mark unset when the full run fails, so the next run repeats it', async () => {
    const { reconciler, state } = world(3);
    state.postgresDown = true;
    await expect(reconciler.reconcile()).rejects.toThrow(/ECONNREFUSED/);
    expect(state.kept).toBe(false);
    state.postgresDown = false;
    expect(await reconciler.reconcile()).toBe(3);
    expect(state.kept).toBe(true);
  });
});
