import { AppError } from '@app/common';

/**
 * Whether an operation that has been failing transiently since `retryingSince` is past its
 * deadline (OPERATION_DEADLINE_MS). The clock starts at the first failed attempt, not at the
 * operation's creation: a backlog that waited for a worker is tried before it can expire.
 */
export function pastDeadline(
  retryingSince: Date | null,
  deadlineMs: number,
  now: number = Date.now(),
): boolean {
  return retryingSince !== null && now - retryingSince.getTime() >= deadlineMs;
}

/** How an operation whose retries outlasted the deadline fails: with its last error. */
export function retriesExhausted(lastError: string | null): AppError {
  return new AppError(
    'RETRIES_EXHAUSTED',
    `retries exhausted: ${lastError ?? 'the operation did not complete in time.'}`,
  );
}
