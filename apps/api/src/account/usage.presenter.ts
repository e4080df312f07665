import type { ConcreteNetwork } from '@app/config';
import type { ConfirmationLatency } from '@app/database';
import type { Usage, UsageCounts, UsageWindowName } from '@app/domain';

export interface UsageView {
  window: UsageWindowName;
  network: ConcreteNetwork | null;
  /** The first hour shown (UTC, whole hour) and the moment of the reading. */
  from: string;
  to: string;
  /** One entry per hour of the window, oldest first, hours without operations included. */
  hours: ({ hour: string } & UsageCounts)[];
  totals: UsageCounts;
  confirmation_latency_ms: ConfirmationLatency;
  /**
   * The operations not settled yet (queued, signed or submitted) at the moment of the reading,
   * whatever their age: unlike `totals.pending`, not bounded by the window.
   */
  pending_now: {
    total: number;
    /** Only the networks with pending operations. */
    by_network: Partial<Record<ConcreteNetwork, number>>;
  };
}

export function presentUsage(usage: Usage): UsageView {
  return {
    window: usage.window,
    network: usage.network,
    from: usage.from.toISOString(),
    to: usage.to.toISOString(),
    hours: usage.hours.map(({ hour, confirmed, failed, pending }) => ({
      hour: hour.toISOString(),
      confirmed,
      failed,
      pending,
    })),
    totals: usage.totals,
    confirmation_latency_ms: usage.confirmationLatency,
    pending_now: { total: usage.pendingNow.total, by_network: usage.pendingNow.byNetwork },
  };
}
