import { ADAPTIVE_LIMIT_DEFAULTS, AdaptiveLimit } from './adaptive-limit';

const bounds = { initial: 32, min: 4, max: 256 };

function limiter(overrides: Partial<ConstructorParameters<typeof AdaptiveLimit>[0]> = {}) {
  return new AdaptiveLimit({ ...ADAPTIVE_LIMIT_DEFAULTS, ...bounds, ...overrides });
}

/** Feeds `count` jobs of `latencyMs`, all slots busy, one ms apart; returns the last limit. */
function feed(limit: AdaptiveLimit, count: number, latencyMs: number | (() => number), at = 0) {
  let last = limit.limit;
  for (let i = 0; i < count; i++) {
    const ms = typeof latencyMs === 'number' ? latencyMs : latencyMs();
    last = limit.sample(ms, limit.limit, at + i);
  }
  return last;
}

describe('AdaptiveLimit', () => {
  it('starts at its initial limit, within its bounds', () => {
    expect(limiter().limit).toBe(32);
    expect(limiter({ initial: 1000 }).limit).toBe(256);
    expect(limiter({ initial: 1 }).limit).toBe(4);
  });

  it('does not move while the short-term average settles', () => {
    const limit = limiter();
    expect(feed(limit, ADAPTIVE_LIMIT_DEFAULTS.warmUpSamples - 1, 40)).toBe(32);
  });

  it('grows while latency holds, up to its ceiling', () => {
    const limit = limiter();
    feed(limit, 100, 40);
    expect(limit.limit).toBeGreaterThan(64);
    feed(limit, 2_000, 40);
    expect(limit.limit).toBe(256);
  });

  it('does not grow while fewer than half its jobs run (nothing says more would not queue)', () => {
    const limit = limiter();
    for (let i = 0; i < 200; i++) limit.sample(40, 10, i);
    expect(limit.limit).toBe(32);
  });

  it('shrinks when latency passes the tolerance over the no-load latency, to the floor at most', () => {
    const limit = limiter();
    feed(limit, 300, 40);
    const grown = limit.limit;
    // By about half a round trip: as many jobs ending as run at once.
    feed(limit, grown, 400, 300);
    expect(limit.limit).toBeLessThan(grown * 0.6);
    let lowest = limit.limit;
    for (let i = 0; i < 500; i++)
      lowest = Math.min(lowest, limit.sample(400, limit.limit, 600 + i));
    expect(lowest).toBe(4);
  });

  it('holds steady where latency sits within the tolerance', () => {
    const limit = limiter();
    feed(limit, 300, 40);
    const before = limit.limit;
    feed(limit, 300, 70, 300);
    expect(limit.limit).toBeGreaterThanOrEqual(before);
  });

  it('finds the limit where a busy machine keeps latency near its tolerance', () => {
    // A machine that finishes 200 jobs a second with a 40 ms floor: more at once only queue.
    const limit = limiter({ initial: 4 });
    const latency = () => Math.max(40, (limit.limit / 200) * 1000);
    feed(limit, 3_000, latency);
    expect(limit.shortMs!).toBeLessThan(3 * 40);
    expect(limit.limit).toBeGreaterThanOrEqual(8); // 200/s x 40 ms = 8 keep it busy
    expect(limit.limit).toBeLessThanOrEqual(24);
  });

  it('on a chain with blocks, grows until enough jobs are at once to fill them', () => {
    // Every job waits for the next 1 s block: latency holds whatever the number at once.
    const limit = limiter();
    let n = 0;
    feed(limit, 3_000, () => 500 + ((n++ * 37) % 500));
    expect(limit.limit).toBe(256);
  });

  it('keeps its no-load figure through a long flood, not following the queued latency up', () => {
    const limit = limiter();
    feed(limit, 300, 40); // grown high on a quiet machine before the flood
    const latency = () => Math.max(40, (limit.limit / 200) * 1000);
    feed(limit, 20_000, latency, 1_000); // within one window
    expect(limit.baselineMs!).toBeLessThan(45);
    expect(limit.limit).toBeLessThanOrEqual(24);
  });

  it('takes a slower chain as the new no-load latency once at its floor', () => {
    const limit = limiter();
    feed(limit, 300, 40);
    feed(limit, 2_000, 400, 1_000);
    expect(limit.baselineMs!).toBeGreaterThan(300);
    feed(limit, 500, 400, 5_000);
    expect(limit.limit).toBeGreaterThan(100);
  });

  it('forgets a no-load figure after two windows', () => {
    const limit = limiter({ baselineWindowMs: 1_000, min: 1 });
    feed(limit, 100, 40);
    for (let i = 0; i < 100; i++) limit.sample(70, 1, 1_000 + i * 20); // window 2
    for (let i = 0; i < 100; i++) limit.sample(70, 1, 3_100 + i * 20); // window 3
    expect(limit.baselineMs!).toBeGreaterThan(65);
  });
});
