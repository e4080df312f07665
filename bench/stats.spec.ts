import { ratioAgainst } from './stats';

describe('ratioAgainst', () => {
  it('misses a target the exact ratio misses, however close', () => {
    expect(ratioAgainst(1_282.8 * 0.9975, 641.4, 2)).toEqual({ ratio: 1.995, met: false });
    expect(ratioAgainst(1_999.9, 1_000, 2)).toEqual({ ratio: 1.999, met: false });
  });

  it('meets a target the exact ratio reaches', () => {
    expect(ratioAgainst(2_000, 1_000, 2)).toEqual({ ratio: 2, met: true });
    expect(ratioAgainst(1_173, 490, 2)).toEqual({ ratio: 2.393, met: true });
  });
});
