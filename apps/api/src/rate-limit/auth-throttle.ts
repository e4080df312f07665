import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { APP_CONFIG, type AppConfig, type RateRule } from '@app/config';
import { normalizeEmail } from '@app/domain';
import { addressBucket } from './client-address';
import { LocalWindowCounter } from './local-window-counter';
import { RateLimitService } from './rate-limit.service';
import { tooManyRequests } from './too-many-requests';

/**
 * The throttles of the public sign-in and registration routes, per client address and per email,
 * and of the admin routes' Basic credentials, per client address,
 * counted in Redis (shared by every API instance) and checked before the password is hashed or
 * verified: a refused attempt costs no scrypt. An attempt is counted before it is tried, so that
 * many attempts in parallel cannot all slip in before the first failure is known; a sign-in that
 * succeeds gives its attempt back, so only failures accumulate against an email. Unlike the
 * API's limits they do not fail open when Redis does not answer: each attempt is also counted in
 * this instance's memory, which decides when Redis is away or late. Otherwise a burst of guesses
 * heavy enough to slow the API past Redis's deadline would lift the throttle meant to stop it.
 */
@Injectable()
export class AuthThrottle {
  private readonly local = new LocalWindowCounter();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limiter: RateLimitService,
  ) {}

  async admitLogin(ip: string, email: string): Promise<void> {
    const { loginPerIp, loginPerEmail } = this.config.limits;
    await this.admit(
      `login:ip:${addressBucket(ip)}`,
      loginPerIp,
      'sign-in attempts from this address',
    );
    await this.admit(loginEmailBucket(email), loginPerEmail, 'failed sign-ins for this email');
  }

  async loginSucceeded(email: string): Promise<void> {
    await this.refund(loginEmailBucket(email));
  }

  async admitRegistration(ip: string, email: string): Promise<void> {
    const { registerPerIp, registerPerEmail } = this.config.limits;
    await this.admit(
      `register:ip:${addressBucket(ip)}`,
      registerPerIp,
      'registrations from this address',
    );
    await this.admit(
      `register:email:${emailHash(email)}`,
      registerPerEmail,
      'registrations for this email',
    );
  }

  /**
   * Before an admin Basic password is compared: counted per client address, and given back by
   * adminSucceeded, so only wrong passwords add up and an address over the limit is refused
   * even the right one until the window ends.
   */
  async admitAdmin(ip: string): Promise<void> {
    await this.admit(
      adminIpBucket(ip),
      this.config.limits.adminPerIp,
      'failed admin sign-ins from this address',
    );
  }

  async adminSucceeded(ip: string): Promise<void> {
    await this.refund(adminIpBucket(ip));
  }

  private async admit(bucket: string, rule: RateRule, what: string): Promise<void> {
    const local = this.local.consume(bucket, rule);
    const decision = (await this.limiter.consume(bucket, rule)) ?? local;
    if (!decision.allowed) {
      throw tooManyRequests(
        decision,
        `Too many ${what}: at most ${rule.requests} per ${rule.windowSeconds} seconds`,
      );
    }
  }

  private async refund(bucket: string): Promise<void> {
    this.local.refund(bucket);
    await this.limiter.refund(bucket);
  }
}

function adminIpBucket(ip: string): string {
  return `admin:ip:${addressBucket(ip)}`;
}

function loginEmailBucket(email: string): string {
  return `login:email:${emailHash(email)}`;
}

/** Emails are counted by hash: Redis holds no address book of who tried to sign in. */
function emailHash(email: string): string {
  return createHash('sha256').update(normalizeEmail(email)).digest('hex').slice(0, 32);
}
