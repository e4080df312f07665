import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

export type AuthMode = 'api-key' | 'session' | 'api-key-or-session' | 'public';
export const AUTH_MODE = 'auth-mode';

/** No credentials needed (health, hosted metadata, registration, login). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(AUTH_MODE, 'public');

/** The dashboard's session cookie instead of an API key (the /account routes). */
export const SessionAuth = (): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_MODE, 'session');

/** Either: an `api-key` header when one is sent, else the session cookie (the account's own reads). */
export const ApiKeyOrSessionAuth = (): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_MODE, 'api-key-or-session');

export interface AuthenticatedRequest extends FastifyRequest {
  accountId?: string;
  apiKeyId?: string;
}

/** The authenticated account's id, set by the AuthGuard. */
export const AccountId = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const accountId = context.switchToHttp().getRequest<AuthenticatedRequest>().accountId;
  if (!accountId) throw new Error('AccountId used on a route without authentication');
  return accountId;
});
