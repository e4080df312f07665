import { AppError } from '@app/common';
import type { RateLimitDecision } from './rate-limit.service';

/** The RateLimit-* headers of a counted request (IETF draft "RateLimit header fields"). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
}

/**
 * The contract's 429: the envelope with `Too many requests`, a message saying which limit and
 * when to come back, and `Retry-After` (seconds until the window ends).
 */
export function tooManyRequests(
  decision: RateLimitDecision,
  limitExceeded: string,
  headers: Record<string, string> = {},
): AppError {
  return new AppError(
    'TOO_MANY_REQUESTS',
    `${limitExceeded}; retry in ${decision.resetSeconds} s.`,
    { ...headers, 'Retry-After': String(decision.resetSeconds) },
  );
}
