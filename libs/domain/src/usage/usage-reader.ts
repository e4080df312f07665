import { Injectable } from '@nestjs/common';
import type { ConcreteNetwork } from '@app/config';
import {
  OperationUsageRepository,
  type ConfirmationLatency,
  type HourlyOperationCounts,
  type PendingOperationCount,
} from '@app/database';

export type UsageWindowName = 'day' | 'week';

const WINDOW_HOURS: Record<UsageWindowName, number> = { day: 24, week: 24 * 7 };
const HOUR_MS = 3_600_000;

export interface UsageCounts {
  confirmed: number;
  failed: number;
  pending: number;
}

export interface Usage {
  window: UsageWindowName;
  network: ConcreteNetwork | null;
  /** The first hour shown (UTC, whole hour) and the moment of the reading. */
  from: Date;
  to: Date;
  /** One entry per hour of the window, oldest first, hours without operations included. */
  hours: HourlyOperationCounts[];
  totals: UsageCounts;
  /** Acceptance to confirmation of the window's confirmed operations (ms). */
  confirmationLatency: ConfirmationLatency;
  /**
   * The operations not settled yet (queued, signed or submitted) at the moment of the reading,
   * whatever their age: unlike `totals.pending`, not bounded by the window.
   */
  pendingNow: PendingNow;
}

export interface PendingNow {
  total: number;
  /** Only the networks with pending operations. */
  byNetwork: Partial<Record<ConcreteNetwork, number>>;
}

/**
 * The account's usage at a glance: operations per hour by status, confirmation latency, and the
 * operations pending now.
 */
@Injectable()
export class UsageReader {
  constructor(private readonly usage: OperationUsageRepository) {}

  async read(
    accountId: string,
    window: UsageWindowName,
    network?: ConcreteNetwork,
    now = new Date(),
  ): Promise<Usage> {
    const hourCount = WINDOW_HOURS[window];
    const from = new Date(
      Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - (hourCount - 1) * HOUR_MS,
    );
    const query = { accountId, from, network };
    const [counted, latency, pending] = await Promise.all([
      this.usage.hourlyCounts(query),
      this.usage.confirmationLatency(query),
      this.usage.pendingByNetwork(accountId, network),
    ]);
    const hours = fillHours(from, hourCount, counted);
    const totals: UsageCounts = { confirmed: 0, failed: 0, pending: 0 };
    for (const hour of hours) {
      totals.confirmed += hour.confirmed;
      totals.failed += hour.failed;
      totals.pending += hour.pending;
    }
    return {
      window,
      network: network ?? null,
      from,
      to: now,
      hours,
      totals,
      confirmationLatency: latency,
      pendingNow: pendingNow(pending),
    };
  }
}

function pendingNow(counts: PendingOperationCount[]): PendingNow {
  const byNetwork: PendingNow['byNetwork'] = {};
  let total = 0;
  for (const { network, pending } of counts) {
    byNetwork[network] = pending;
    total += pending;
  }
  return { total, byNetwork };
}

/** Every hour from `from`, with the counted ones filled in and the others zero. */
function fillHours(
  from: Date,
  hourCount: number,
  counted: HourlyOperationCounts[],
): HourlyOperationCounts[] {
  const byHour = new Map(counted.map((row) => [row.hour.getTime(), row]));
  return Array.from({ length: hourCount }, (_, index) => {
    const hour = from.getTime() + index * HOUR_MS;
    const row = byHour.get(hour);
    return {
      hour: new Date(hour),
      confirmed: row?.confirmed ?? 0,
      failed: row?.failed ?? 0,
      pending: row?.pending ?? 0,
    };
  });
}
