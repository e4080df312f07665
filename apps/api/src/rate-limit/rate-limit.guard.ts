import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError } from '@app/common';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { RateLimitService, type RateLimitDecision } from './rate-limit.service';

/**
 * Global guard registered after the AuthGuard: it limits the api-key routes per API key (the
 * AuthGuard has set `request.apiKeyId` by then). Public and session routes carry no key id and
 * pass untouched. Every limited response carries RateLimit-Limit / -Remaining / -Reset; a refusal
 * is the contract's 429 with Retry-After.
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
    const apiKeyId = http.getRequest<AuthenticatedRequest>().apiKeyId;
    if (!apiKeyId) return true;

    const decision = await this.limiter.consume(apiKeyId);
    if (!decision) return true;
    const headers = rateLimitHeaders(decision);
    if (decision.allowed) {
      void http.getResponse<FastifyReply>().headers(headers);
      return true;
    }
    const { requests, windowSeconds } = this.config.rateLimit;
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `Rate limit of ${requests} requests per ${windowSeconds} seconds exceeded; ` +
        `retry in ${decision.resetSeconds} s.`,
      { ...headers, 'Retry-After': String(decision.resetSeconds) },
    );
  }
}

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
}
