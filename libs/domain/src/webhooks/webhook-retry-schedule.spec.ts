import { webhookRetryDelayMs } from './webhook-retry-schedule';

const schedule = { retryBaseMs: 5_000, retryMaxMs: 3_600_000 };

describe('webhook retry schedule', () => {
  it('doubles from the base after each failure, up to the cap (without jitter)', () => {
    const middle = () => 0.5; // jitter factor 1
    const delays = [1, 2, 3, 4, 5, 10, 11, 12, 40].map((n) =>
      webhookRetryDelayMs(n, schedule, middle),
    );
    expect(delays).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 2_560_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });

  it('spreads each delay by +-20%', () => {
    expect(webhookRetryDelayMs(1, schedule, () => 0)).toBe(4_000);
    expect(webhookRetryDelayMs(1, schedule, () => 0.999999)).toBe(6_000);
    expect(webhookRetryDelayMs(50, schedule, () => 0)).toBe(2_880_000);
  });

  it('retries for at least 24 hours before the default window ends', () => {
    // With the smallest jitter, the attempts made within 24 h: the schedule keeps trying.
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < 24 * 3_600_000) {
      attempts += 1;
      elapsed += webhookRetryDelayMs(attempts, schedule, () => 0);
    }
    expect(attempts).toBeGreaterThan(20);
  });
});
