import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { RateLimitService, type RateLimitDecision } from './rate-limit.service';
import { rateLimitHeaders, tooManyRequests } from './too-many-requests';

/** Reads; every other method of an api-key route is a write (it may sign a transaction). */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Global guard registered after the AuthGuard: it limits the api-key routes per API key, and
 * their writes per account as well (the AuthGuard has set `apiKeyId` and `accountId` by then), so
 * that issuing more keys does not buy more writes. Public and session routes carry no key id and
 * pass untouched. Every limited response carries RateLimit-Limit / -Remaining / -Reset of the
 * tighter of its limits; a refusal is the contract's 429 with Retry-After.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limiter: RateLimitService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const { apiKeyId, accountId, method } = http.getRequest<AuthenticatedRequest>();
    if (!apiKeyId || !accountId) return true;

    const perKey = await this.limiter.consumeLeased(`key:${apiKeyId}`, this.config.rateLimit);
    if (perKey && !perKey.allowed) {
      const { requests, windowSeconds } = this.config.rateLimit;
      throw tooManyRequests(
        perKey,
        `Rate limit of ${requests} requests per ${windowSeconds} seconds exceeded`,
        rateLimitHeaders(perKey),
      );
    }
    const writes = this.config.limits.accountWrites;
    const perAccount = READ_METHODS.has(method)
      ? null
      : await this.limiter.consumeLeased(`account-writes:${accountId}`, writes);
    if (perAccount && !perAccount.allowed) {
      throw tooManyRequests(
        perAccount,
        `Write limit of ${writes.requests} writes per ${writes.windowSeconds} seconds for ` +
          'this account (all its API keys together) exceeded',
        rateLimitHeaders(perAccount),
      );
    }
    const shown = tighter(perKey, perAccount);
    if (shown) void http.getResponse<FastifyReply>().headers(rateLimitHeaders(shown));
    return true;
  }
}

/** The decision with fewer requests left: what a client must pace itself by. */
function tighter(
  a: RateLimitDecision | null,
  b: RateLimitDecision | null,
): RateLimitDecision | null {
  if (!a || !b) return a ?? b;
  return b.remaining < a.remaining ? b : a;
}
