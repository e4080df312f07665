import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type ChainFamily } from '@app/config';
import { AppError, newId } from '@app/common';
import {
  AccountRepository,
  ManagedWalletRepository,
  SessionRepository,
  UnitOfWork,
  type AccountEntity,
  type AuditDetails,
  type AuditEventInput,
  type ManagedWalletEntity,
  type SessionEntity,
} from '@app/database';
import { AuditTrail } from '../audit/audit-trail';
import { hashPassword, verifyPassword } from '../security/password-hasher';
import { newSessionToken, tokenHash } from '../security/tokens';
import { ManagedWallets } from './managed-wallets';

/** An account as its owner sees it: no password hash, and no sealed key of its wallets. */
export interface AccountProfile {
  id: string;
  email: string;
  /** Its managed wallets, in the order the account's reads list them (solana, then evm). */
  wallets: { family: ChainFamily; address: string }[];
  createdAt: Date;
}

export interface Session {
  token: string;
  expiresAt: Date;
}

/** Verifying against this keeps a login for an unknown email as slow as a wrong password. */
const DECOY_HASH = hashPassword('decoy password that matches nothing');

@Injectable()
export class AccountService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly unitOfWork: UnitOfWork,
    private readonly accounts: AccountRepository,
    private readonly sessions: SessionRepository,
    private readonly wallets: ManagedWalletRepository,
    private readonly managedWallets: ManagedWallets,
    private readonly audit: AuditTrail,
  ) {}

  /** Creates the account and its two managed wallets in one transaction, then a session. */
  async register(
    email: string,
    password: string,
  ): Promise<{ account: AccountProfile; session: Session }> {
    const account: AccountEntity = {
      id: newId(),
      email: normalizeEmail(email),
      passwordHash: await hashPassword(password),
      createdAt: new Date(),
    };
    const wallets = await this.managedWallets.generate(account.id);
    const { session, row } = newSession(account.id, this.config.api.sessionTtlHours);
    // The account, its wallets and its session are one transaction: a registration cut short
    // (Postgres gone) leaves nothing, so the client's retry registers it anew.
    try {
      await this.unitOfWork.run(async (scope) => {
        if (!(await this.accounts.insert(scope, account))) {
          throw AppError.conflict('An account with this email already exists.');
        }
        await this.wallets.insertMany(scope, wallets);
        await this.sessions.insert(row, scope);
        await this.audit.record(accountCreated(account, wallets, row.id), scope);
      });
    } catch (error) {
      // The email was taken: nothing was stored, and unauthenticated callers can repeat it, so
      // its keys go. Any other failure keeps them: had the commit landed unseen, destroying a
      // stored wallet's key would lose the wallet (an orphan key is the smaller loss).
      if (error instanceof AppError && error.code === 'CONFLICT') {
        await this.managedWallets.discard(wallets);
      }
      throw error;
    }
    await this.managedWallets.fund(wallets);
    return { account: accountProfile(account, wallets), session };
  }

  async login(
    email: string,
    password: string,
  ): Promise<{ account: AccountProfile; session: Session }> {
    const account = await this.accounts.findByEmail(normalizeEmail(email));
    const valid = await verifyPassword(password, account?.passwordHash ?? (await DECOY_HASH));
    if (!account || !valid) {
      // Recorded against an existing account only: an unknown email has no chain to join.
      if (account) await this.audit.record({ accountId: account.id, type: 'login.failed' });
      throw new AppError('UNAUTHORIZED', 'Invalid email or password.');
    }
    return {
      account: await this.profile(account.id),
      session: await this.openSession(account.id),
    };
  }

  async logout(token: string): Promise<void> {
    await this.audit.recordWith(
      (scope) => this.sessions.deleteByTokenHash(tokenHash(token), scope),
      (ended) =>
        ended && {
          accountId: ended.accountId,
          type: 'session.ended',
          details: { session_id: ended.id },
        },
    );
  }

  /** The account a session token belongs to, or null when unknown or expired. */
  async accountIdForSession(token: string): Promise<string | null> {
    const session = await this.sessions.findLive(tokenHash(token), new Date());
    return session?.accountId ?? null;
  }

  async profile(accountId: string): Promise<AccountProfile> {
    const [account, wallets] = await Promise.all([
      this.accounts.findById(accountId),
      this.wallets.listForAccount(accountId),
    ]);
    if (!account) throw AppError.notFound('Account not found.');
    return accountProfile(account, wallets);
  }

  private async openSession(accountId: string): Promise<Session> {
    const { session, row } = newSession(accountId, this.config.api.sessionTtlHours);
    await this.audit.recordWith(
      (scope) => this.sessions.insert(row, scope),
      () => ({ accountId, type: 'login.succeeded', details: { session_id: row.id } }),
    );
    return session;
  }
}

/** A new session: the token for the client, the row (its hash only) for Postgres. */
function newSession(accountId: string, ttlHours: number): { session: Session; row: SessionEntity } {
  const token = newSessionToken();
  const expiresAt = new Date(Date.now() + ttlHours * 3600_000);
  const row = {
    id: newId(),
    accountId,
    tokenHash: tokenHash(token),
    expiresAt,
    createdAt: new Date(),
  };
  return { session: { token, expiresAt }, row };
}

/** The first entry of an account's audit trail: who it is and the managed keys it was given. */
function accountCreated(
  account: AccountEntity,
  wallets: ManagedWalletEntity[],
  sessionId: string,
): AuditEventInput {
  const details: AuditDetails = { email: account.email, session_id: sessionId };
  for (const wallet of wallets) details[`${wallet.family}_wallet`] = wallet.address;
  return { accountId: account.id, type: 'account.created', details };
}

/** Wallets in the order the account's reads list them (solana, then evm). */
function accountProfile(account: AccountEntity, wallets: ManagedWalletEntity[]): AccountProfile {
  return {
    id: account.id,
    email: account.email,
    wallets: [...wallets]
      .sort((a, b) => (a.family < b.family ? 1 : a.family > b.family ? -1 : 0))
      .map((wallet) => ({ family: wallet.family, address: wallet.address })),
    createdAt: account.createdAt,
  };
}

/** How an email is stored and compared (also what sign-in throttles count by). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
