import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError } from '@app/common';
import { AccountService, ApiKeyService } from '@app/domain';
import { API_KEY_IN_URL_MESSAGE, apiKeyInUrl } from './api-key-in-url';
import { assertSameOriginWrite } from './cross-site-writes';
import { AUTH_MODE, type AuthMode, type AuthenticatedRequest } from './auth.decorators';
import { SESSION_COOKIE } from './session-cookie';

/**
 * Global guard, secure by default: every route needs an `api-key` unless marked @Public() or
 * @SessionAuth().
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeyService,
    private readonly accounts: AccountService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const mode =
      this.reflector.getAllAndOverride<AuthMode | undefined>(AUTH_MODE, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'api-key';
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    switch (mode) {
      case 'public':
        return true;
      case 'session':
        if (header(request, 'api-key') !== undefined) {
          // Not a missing credential but the wrong kind: what a session guards (keys, signing
          // policies) must stay out of reach of a leaked API key.
          throw new AppError(
            'FORBIDDEN',
            'This route takes the dashboard session, not an api-key: sign in to the dashboard.',
          );
        }
        return this.authenticateSession(request);
      case 'api-key':
        return this.authenticateApiKey(request);
      case 'api-key-or-session':
        return header(request, 'api-key') === undefined
          ? this.authenticateSession(request)
          : this.authenticateApiKey(request);
    }
  }

  private async authenticateApiKey(request: AuthenticatedRequest): Promise<boolean> {
    const principal = await this.apiKeys.authenticate(header(request, 'api-key'));
    if (!principal) {
      throw AppError.unauthorized(apiKeyInUrl(request.url) ? API_KEY_IN_URL_MESSAGE : undefined);
    }
    this.checkAuthKey(request);
    request.accountId = principal.accountId;
    request.apiKeyId = principal.apiKeyId;
    return true;
  }

  private async authenticateSession(request: AuthenticatedRequest): Promise<boolean> {
    const token = request.cookies?.[SESSION_COOKIE];
    const accountId = token ? await this.accounts.accountIdForSession(token) : null;
    if (!accountId) throw AppError.unauthorized('Sign in first: no valid session.');
    assertSameOriginWrite(request);
    request.accountId = accountId;
    return true;
  }

  /** Spec 5.4: `auth-key` is checked only when the deployment sets one. */
  private checkAuthKey(request: AuthenticatedRequest): void {
    const expected = this.config.api.authKey;
    if (!expected) return;
    const presented = Buffer.from(header(request, 'auth-key') ?? '');
    const wanted = Buffer.from(expected);
    if (presented.length !== wanted.length || !timingSafeEqual(presented, wanted)) {
      throw AppError.unauthorized('Invalid auth-key');
    }
  }
}

function header(request: AuthenticatedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
