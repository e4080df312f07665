import {
  LINED_DELAY_FACTOR,
  LOWEST_PRIORITY,
  MAX_LINED_DELAY_MS,
  QUEUED_ROUNDS,
  fairSharePriority,
  joinsLine,
  linedDelayMs,
} from './account-scheduling';

describe('fairSharePriority', () => {
  it("is the job's place in its account's backlog", () => {
    expect(fairSharePriority(1, 1)).toBe(1);
    expect(fairSharePriority(2, 1)).toBe(2);
    expect(fairSharePriority(10_000, 1)).toBe(10_000);
  });

  it('lets an account of weight w take w jobs per round', () => {
    expect([1, 2, 3, 4, 5].map((k) => fairSharePriority(k, 2))).toEqual([1, 1, 2, 2, 3]);
  });

  it('orders two backlogs round-robin: the idle account is next', () => {
    const flood = Array.from({ length: 1_000 }, (_, i) => ({
      account: 'A',
      p: fairSharePriority(i + 1, 1),
    }));
    const idle = { account: 'B', p: fairSharePriority(1, 1) };
    // BullMQ: lowest number first, FIFO among equals (B's job came last).
    const order = [...flood, idle]
      .map((job, at) => ({ ...job, at }))
      .sort((x, y) => x.p - y.p || x.at - y.at);
    expect(order.findIndex((job) => job.account === 'B')).toBe(1);
  });

  it("stays within BullMQ's range", () => {
    expect(fairSharePriority(0, 1)).toBe(1);
    expect(fairSharePriority(10 ** 9, 1)).toBe(LOWEST_PRIORITY);
    expect(fairSharePriority(1, 1_000)).toBe(1);
  });
});

describe('linedDelayMs', () => {
  const middle = () => 0.5;

  it('grows with the rounds the backlog needs through the cap', () => {
    expect(linedDelayMs(10, 64, 500, middle)).toBe(500 * LINED_DELAY_FACTOR);
    expect(linedDelayMs(640, 64, 500, middle)).toBe(5_000 * LINED_DELAY_FACTOR);
  });

  it('is capped', () => {
    expect(linedDelayMs(10 ** 6, 1, 500, middle)).toBe(MAX_LINED_DELAY_MS);
  });

  it('is jittered by a quarter either way', () => {
    expect(linedDelayMs(10, 64, 1_000, () => 0)).toBe(750 * LINED_DELAY_FACTOR);
    expect(linedDelayMs(10, 64, 1_000, () => 0.999999)).toBe(1_250 * LINED_DELAY_FACTOR);
  });
});

describe('joinsLine', () => {
  it('lines up a job only while every slot is held and rounds of them are pending', () => {
    expect(joinsLine(4 * QUEUED_ROUNDS + 1, 4, 4)).toBe(true);
    // A backlog the queue holds within its rounds: queued.
    expect(joinsLine(4 * QUEUED_ROUNDS, 4, 4)).toBe(false);
    // A slot free (or a count of pending ones left by a killed worker): queued, to take it.
    expect(joinsLine(1_000, 3, 4)).toBe(false);
    // Queued together: those past the cap's worth ahead of them wait in the line.
    expect(joinsLine(4, 0, 4, 3)).toBe(false);
    expect(joinsLine(5, 0, 4, 4)).toBe(true);
    expect(joinsLine(5, 1, 4, 3)).toBe(false);
  });
});
