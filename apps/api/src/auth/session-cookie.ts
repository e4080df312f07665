import type { FastifyReply } from 'fastify';
import type { AppConfig } from '@app/config';
import type { Session } from '@app/domain';

export const SESSION_COOKIE = 'ais_session';

export function setSessionCookie(reply: FastifyReply, session: Session, config: AppConfig): void {
  void reply.setCookie(SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: config.api.cookieSecure,
    path: '/',
    expires: session.expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: AppConfig): void {
  void reply.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: 'strict',
    secure: config.api.cookieSecure,
    path: '/',
  });
}
