import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ConcreteNetwork } from '@app/config';

/** An hour's operations (by the hour they were accepted), by their status now. */
export interface HourlyOperationCounts {
  hour: Date;
  confirmed: number;
  failed: number;
  /** Queued, signed or submitted: not settled yet. */
  pending: number;
}

/** Acceptance to confirmation, over the confirmed operations of a window (ms). */
export interface ConfirmationLatency {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** How many of an account's operations on one network are not settled yet, whatever their age. */
export interface PendingOperationCount {
  network: ConcreteNetwork;
  pending: number;
}

export interface UsageWindow {
  accountId: string;
  from: Date;
  network?: ConcreteNetwork;
}

/**
 * Aggregates of an account's operations for its usage chart, read along (account, created_at),
 * and its operations pending now, read along the partial index of unsettled ones.
 */
@Injectable()
export class OperationUsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Only the hours that had operations, oldest first; hours are UTC. */
  async hourlyCounts(window: UsageWindow): Promise<HourlyOperationCounts[]> {
    const rows: { hour: Date; confirmed: string; failed: string; pending: string }[] =
      await this.dataSource.query(
        `SELECT date_trunc('hour', created_at, 'UTC') AS hour,
           count(*) FILTER (WHERE status = 'confirmed') AS confirmed,
           count(*) FILTER (WHERE status = 'failed') AS failed,
           count(*) FILTER (WHERE status NOT IN ('confirmed', 'failed')) AS pending
         FROM operations
         WHERE account_id = $1 AND created_at >= $2 AND ($3::text IS NULL OR network = $3)
         GROUP BY 1 ORDER BY 1`,
        [window.accountId, window.from, window.network ?? null],
      );
    return rows.map((row) => ({
      hour: row.hour,
      confirmed: Number(row.confirmed),
      failed: Number(row.failed),
      pending: Number(row.pending),
    }));
  }

  /**
   * The account's unsettled operations now (queued, signed or submitted; UNSETTLED_STATUSES),
   * whatever their age, by network, networks without any left out. The status list is spelled
   * out as in operations_account_pending_idx's predicate, so the planner can read that small
   * index instead of every operation the account ever had.
   */
  async pendingByNetwork(
    accountId: string,
    network?: ConcreteNetwork,
  ): Promise<PendingOperationCount[]> {
    const rows: { network: ConcreteNetwork; pending: string }[] = await this.dataSource.query(
      `SELECT network, count(*) AS pending
       FROM operations
       WHERE account_id = $1 AND status IN ('queued', 'signed', 'submitted') AND settled_at IS NULL
         AND ($2::text IS NULL OR network = $2)
       GROUP BY network ORDER BY network`,
      [accountId, network ?? null],
    );
    return rows.map((row) => ({ network: row.network, pending: Number(row.pending) }));
  }

  async confirmationLatency(window: UsageWindow): Promise<ConfirmationLatency> {
    const rows: { count: string; percentiles: number[] | null }[] = await this.dataSource.query(
      `SELECT count(*) AS count,
         percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (
           ORDER BY extract(epoch FROM settled_at - created_at) * 1000) AS percentiles
       FROM operations
       WHERE account_id = $1 AND created_at >= $2 AND ($3::text IS NULL OR network = $3)
         AND status = 'confirmed' AND settled_at IS NOT NULL`,
      [window.accountId, window.from, window.network ?? null],
    );
    const [p50, p90, p99] = rows[0]?.percentiles ?? [];
    const rounded = (value: number | undefined) => (value === undefined ? null : Math.round(value));
    return {
      count: Number(rows[0]?.count ?? 0),
      p50: rounded(p50),
      p90: rounded(p90),
      p99: rounded(p99),
    };
  }
}
