import type { RateRule } from '@app/config';
import { LocalWindowCounter } from './local-window-counter';

const RULE: RateRule = { requests: 3, windowSeconds: 60 };

describe('LocalWindowCounter', () => {
  let clock: number;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('admits the limit in a window, then refuses until the window ends', () => {
    const counter = new LocalWindowCounter(now);
    const decisions = Array.from({ length: 5 }, () => counter.consume('a', RULE));
    expect(decisions.map(({ allowed }) => allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map(({ remaining }) => remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(decisions[4]).toMatchObject({ limit: 3, resetSeconds: 60 });

    clock += 59_500;
    expect(counter.consume('a', RULE)).toMatchObject({ allowed: false, resetSeconds: 1 });
    clock += 500;
    expect(counter.consume('a', RULE)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('counts each bucket apart', () => {
    const counter = new LocalWindowCounter(now);
    for (let i = 0; i < 3; i += 1) counter.consume('a', RULE);
    expect(counter.consume('a', RULE).allowed).toBe(false);
    expect(counter.consume('b', RULE).allowed).toBe(true);
  });

  it('gives a request back within its window only', () => {
    const counter = new LocalWindowCounter(now);
    for (let i = 0; i < 3; i += 1) counter.consume('a', RULE);
    counter.refund('a');
    expect(counter.consume('a', RULE).allowed).toBe(true);
    expect(counter.consume('a', RULE).allowed).toBe(false);

    counter.refund('unknown');
    clock += 60_000;
    counter.refund('a');
    expect(counter.consume('a', RULE)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('forgets the window started longest ago past its capacity', () => {
    const counter = new LocalWindowCounter(now, 2);
    for (let i = 0; i < 3; i += 1) counter.consume('a', RULE);
    for (let i = 0; i < 3; i += 1) counter.consume('b', RULE);
    counter.consume('c', RULE);
    expect(counter.consume('b', RULE).allowed).toBe(false);
    expect(counter.consume('a', RULE).allowed).toBe(true);
  });
});
