import { judgeGapStanding } from './gap-standing';

const REPLACE_AFTER_MS = 60_000;

describe('judgeGapStanding', () => {
  it('starts the clock at the first sight of a gap', () => {
    expect(judgeGapStanding(undefined, 5n, 1_000, REPLACE_AFTER_MS)).toEqual({
      tooLong: false,
      standing: { nonce: 5n, since: 1_000 },
    });
  });

  it('keeps the clock while the gap stands at the same nonce, under the limit', () => {
    const previous = { nonce: 5n, since: 1_000 };
    expect(judgeGapStanding(previous, 5n, 1_000 + REPLACE_AFTER_MS - 1, REPLACE_AFTER_MS)).toEqual({
      tooLong: false,
      standing: previous,
    });
  });

  it('says too long once the gap has stood the limit, and starts the clock again', () => {
    const previous = { nonce: 5n, since: 1_000 };
    expect(judgeGapStanding(previous, 5n, 1_000 + REPLACE_AFTER_MS, REPLACE_AFTER_MS)).toEqual({
      tooLong: true,
      standing: { nonce: 5n, since: 1_000 + REPLACE_AFTER_MS },
    });
  });

  it('starts the clock again when the gap moves, however long the last one stood', () => {
    const previous = { nonce: 5n, since: 1_000 };
    expect(judgeGapStanding(previous, 6n, 1_000 + 10 * REPLACE_AFTER_MS, REPLACE_AFTER_MS)).toEqual(
      { tooLong: false, standing: { nonce: 6n, since: 1_000 + 10 * REPLACE_AFTER_MS } },
    );
  });

  it('is too long at once with no waiting time configured, after the first sight', () => {
    const first = judgeGapStanding(undefined, 5n, 1_000, 0);
    expect(first.tooLong).toBe(false);
    expect(judgeGapStanding(first.standing, 5n, 1_000, 0).tooLong).toBe(true);
  });
});
