import { AsyncLocalStorage } from 'node:async_hooks';
import * as pg from 'pg';
import { METRICS } from '@app/common';

const firstLane = new AsyncLocalStorage<true>();

/**
 * Queries that wait for a pooled connection ahead of the others. Under one tenant's flood a
 * worker's 10 connections had up to 120 queries waiting, about 110 ms each: a light tenant's job
 * waited that long at each of its statements. Queries made inside `QueryPriority.first`, however
 * deep in its awaits, take the first free connection before every waiting query made outside;
 * among themselves they keep their order.
 *
 * Only work that is few and brief by nature belongs in this lane (the operations an account has
 * first in its backlog): a flood run first would keep everything else waiting.
 */
export const QueryPriority = {
  first<T>(work: () => T): T {
    return firstLane.run(true, work);
  },
  isFirst(): boolean {
    return firstLane.getStore() === true;
  },
};

type ConnectCallback = (
  error: Error | undefined,
  client: pg.PoolClient | undefined,
  release: (error?: Error | boolean) => void,
) => void;

/** What pg-pool queues for a waiting `connect` (its own object; see `PriorityPool`). */
interface Waiter {
  firstLane?: true;
}

/**
 * node-postgres's pool, whose waiting `connect` calls made under `QueryPriority.first` go ahead
 * of the others, and which times every wait (`ais_database_pool_wait_seconds`). pg-pool has no
 * hook for the order of its waiters: this moves the one it has just queued within its queue
 * (`_pendingQueue`, an array it pushes to and takes from the front). Should a release of pg-pool
 * keep its waiters elsewhere, the pool is plain FIFO again, and query-priority.test fails.
 */
export class PriorityPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    const first = QueryPriority.isFirst();
    const waited = METRICS.databasePoolWait.startTimer({ lane: first ? 'first' : 'fair' });
    const waiters = (this as unknown as { _pendingQueue?: Waiter[] })._pendingQueue;
    const queuedBefore = waiters?.length ?? 0;
    const result = callback
      ? super.connect((error, client, release) => {
          waited();
          callback(error, client, release);
        })
      : super.connect().then((client) => {
          waited();
          return client;
        });
    if (first && Array.isArray(waiters) && waiters.length === queuedBefore + 1) {
      moveAheadOfFairLane(waiters);
    }
    return result;
  }
}

/** The last waiter, of the first lane, behind the first lane's others and ahead of the rest. */
function moveAheadOfFairLane(waiters: Waiter[]): void {
  const waiter = waiters.pop()!;
  waiter.firstLane = true;
  const firstFair = waiters.findIndex((queued) => !queued.firstLane);
  waiters.splice(firstFair === -1 ? waiters.length : firstFair, 0, waiter);
}

/** The `pg` module for TypeORM to load (its `driver` option), with `PriorityPool` as its pool. */
export const pgWithPriorityPool: typeof pg = Object.create(pg, {
  Pool: { value: PriorityPool, enumerable: true },
}) as typeof pg;
