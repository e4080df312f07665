/**
 * The delay before a failed delivery's next attempt: `baseMs` after the first failure, doubling
 * with each further one, capped at `maxMs`, spread by +-20% so that deliveries failing together
 * (a receiver's outage) do not all come back in the same instant.
 */
export function webhookRetryDelayMs(
  failedAttempts: number,
  schedule: { retryBaseMs: number; retryMaxMs: number },
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(failedAttempts - 1, 0), 52);
  const delay = Math.min(schedule.retryBaseMs * 2 ** exponent, schedule.retryMaxMs);
  return Math.round(delay * (0.8 + 0.4 * random()));
}
