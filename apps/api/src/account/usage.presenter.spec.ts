import type { Usage } from '@app/domain';
import { presentUsage } from './usage.presenter';

describe('usage presenter', () => {
  it('writes the times as ISO strings and the fields under their API names, in order', () => {
    const usage: Usage = {
      window: 'day',
      network: 'base',
      from: new Date('2026-03-01T10:00:00.000Z'),
      to: new Date('2026-03-01T11:22:33.444Z'),
      hours: [
        { hour: new Date('2026-03-01T10:00:00.000Z'), confirmed: 2, failed: 1, pending: 0 },
        { hour: new Date('2026-03-01T11:00:00.000Z'), confirmed: 0, failed: 0, pending: 3 },
      ],
      totals: { confirmed: 2, failed: 1, pending: 3 },
      confirmationLatency: { count: 2, p50: 1200, p90: 1800, p99: 1800 },
      pendingNow: { total: 4, byNetwork: { base: 3, solana: 1 } },
    };
    expect(JSON.stringify(presentUsage(usage))).toBe(
      JSON.stringify({
        window: 'day',
        network: 'base',
        from: '2026-03-01T10:00:00.000Z',
        to: '2026-03-01T11:22:33.444Z',
        hours: [
          { hour: '2026-03-01T10:00:00.000Z', confirmed: 2, failed: 1, pending: 0 },
          { hour: '2026-03-01T11:00:00.000Z', confirmed: 0, failed: 0, pending: 3 },
        ],
        totals: { confirmed: 2, failed: 1, pending: 3 },
        confirmation_latency_ms: { count: 2, p50: 1200, p90: 1800, p99: 1800 },
        pending_now: { total: 4, by_network: { base: 3, solana: 1 } },
      }),
    );
  });

  it('keeps a null network and null percentiles (no confirmed operation)', () => {
    const view = presentUsage({
      window: 'week',
      network: null,
      from: new Date('2026-03-01T00:00:00.000Z'),
      to: new Date('2026-03-01T00:00:01.000Z'),
      hours: [],
      totals: { confirmed: 0, failed: 0, pending: 0 },
      confirmationLatency: { count: 0, p50: null, p90: null, p99: null },
      pendingNow: { total: 0, byNetwork: {} },
    });
    expect(view.network).toBeNull();
    expect(view.confirmation_latency_ms).toEqual({ count: 0, p50: null, p90: null, p99: null });
    expect(view.pending_now).toEqual({ total: 0, by_network: {} });
  });
});
