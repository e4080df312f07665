import type { RateRule } from '@app/config';
import { LeasedCounter, type LeaseGrant } from './leased-counter';

const RULE: RateRule = { requests: 10, windowSeconds: 60 };

/** The shared count as the LEASE script keeps it: one window, grants never past the limit. */
function sharedCount(now: () => number) {
  let count = 0;
  let windowEnds = 0;
  const grant = jest.fn(async (_bucket: string, rule: RateRule, size: number) => {
    if (now() >= windowEnds) {
      count = 0;
      windowEnds = now() + rule.windowSeconds * 1000;
    }
    const granted = Math.max(0, Math.min(size, rule.requests - count));
    count += granted;
    return { granted, count, ttlMs: windowEnds - now() } satisfies LeaseGrant;
  });
  return { grant };
}

describe('LeasedCounter', () => {
  let clock: number;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('answers a lease of requests from one grant, then asks again', async () => {
    const { grant } = sharedCount(now);
    const counter = new LeasedCounter(grant, now);
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await counter.consume('key:a', RULE, 3));
    expect(grant).toHaveBeenCalledTimes(2);
    expect(decisions.map((d) => d?.remaining)).toEqual([9, 8, 7, 6]);
    expect(decisions.every((d) => d?.allowed && d.limit === 10 && d.resetSeconds === 60)).toBe(
      true,
    );
  });

  it('never lets more than the limit through across instances, and refuses until the window ends', async () => {
    const { grant } = sharedCount(now);
    const instances = [new LeasedCounter(grant, now), new LeasedCounter(grant, now)];
    let allowed = 0;
    let refused = 0;
    for (let i = 0; i < 30; i += 1) {
      const decision = await instances[i % 2].consume('key:a', RULE, 3);
      if (decision?.allowed) allowed += 1;
      else refused += 1;
    }
    // Ten counted: at most ten served, and no more than a lease per instance left unused.
    expect(allowed).toBeLessThanOrEqual(10);
    expect(allowed).toBeGreaterThanOrEqual(10 - 2 * 3);
    expect(refused).toBe(30 - allowed);
    const refusal = await instances[0].consume('key:a', RULE, 3);
    expect(refusal).toEqual({ allowed: false, limit: 10, remaining: 0, resetSeconds: 60 });

    clock += 60_000;
    expect(await instances[1].consume('key:a', RULE, 3)).toMatchObject({ allowed: true });
  });

  it('makes one grant for concurrent requests of a bucket, and serves them all from it', async () => {
    const { grant } = sharedCount(now);
    const counter = new LeasedCounter(grant, now);
    const decisions = await Promise.all(
      Array.from({ length: 5 }, () => counter.consume('key:a', RULE, 5)),
    );
    expect(grant).toHaveBeenCalledTimes(1);
    expect(decisions.map((d) => d?.remaining).sort()).toEqual([5, 6, 7, 8, 9]);
  });

  it('answers null (fail open) when the shared count does not answer', async () => {
    const counter = new LeasedCounter(async () => null, now);
    expect(await counter.consume('key:a', RULE, 3)).toBeNull();
  });

  it('drops a lease when its window ends', async () => {
    const { grant } = sharedCount(now);
    const counter = new LeasedCounter(grant, now);
    await counter.consume('key:a', RULE, 3);
    clock += 60_000;
    expect(await counter.consume('key:a', RULE, 3)).toMatchObject({ remaining: 9 });
    expect(grant).toHaveBeenCalledTimes(2);
  });
});
