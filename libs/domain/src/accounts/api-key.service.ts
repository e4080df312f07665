import { Inject, Injectable, Logger } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, newId, TtlCache } from '@app/common';
import { ApiKeyRepository, type ApiKeyEntity, type AuditEventInput } from '@app/database';
import { ApiKeyRevocations } from '@app/queue';
import { AuditTrail } from '../audit/audit-trail';
import { newApiKey, tokenHash } from '../security/tokens';

export interface IssuedApiKey {
  apiKey: ApiKeyEntity;
  /** The whole key: returned once, at issue, and never again. */
  key: string;
}

export interface ApiKeyPrincipal {
  accountId: string;
  apiKeyId: string;
}

const DISPLAY_PREFIX_LENGTH = 12;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How stale a cached key may be if a revocation message is lost. */
const ACTIVE_KEY_TTL_MS = 30_000;

/**
 * API keys: issued, listed, revoked, and checked on every request. Active keys are cached per
 * process (by the key's hash) once this process hears revocations: a revoked key is dropped
 * from every instance's cache as soon as the news arrives, and at worst after the TTL.
 */
@Injectable()
export class ApiKeyService {
  private readonly logger = new Logger(ApiKeyService.name);
  private readonly active = new TtlCache<ApiKeyPrincipal>(ACTIVE_KEY_TTL_MS);
  private hearing?: Promise<void>;
  private caching = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: ApiKeyRepository,
    private readonly revocations: ApiKeyRevocations,
    private readonly audit: AuditTrail,
  ) {}

  async issue(accountId: string, name: string | undefined): Promise<IssuedApiKey> {
    const key = newApiKey();
    const entity: ApiKeyEntity = {
      id: newId(),
      accountId,
      name: name?.trim() || 'API key',
      keyPrefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
      keyHash: tokenHash(key),
      createdAt: new Date(),
      revokedAt: null,
    };
    // A cap on active keys: the per-key rate limit would be no limit if keys were free.
    const max = this.config.limits.maxApiKeysPerAccount;
    const inserted = await this.audit.recordWith(
      (scope) => this.keys.insertWithinCap(entity, max, scope),
      (ok) => (ok ? keyEvent('api_key.issued', entity) : null),
    );
    if (!inserted) {
      throw AppError.conflict(
        `This account already has ${max} active API keys, the most it may hold: ` +
          'revoke one before issuing another.',
      );
    }
    return { apiKey: entity, key };
  }

  /** The account's keys (their hashes, never the keys themselves). */
  async list(accountId: string): Promise<ApiKeyEntity[]> {
    return this.keys.listForAccount(accountId);
  }

  async revoke(accountId: string, id: string): Promise<void> {
    const revoked = UUID.test(id)
      ? await this.audit.recordWith(
          (scope) => this.keys.revoke(accountId, id, new Date(), scope),
          (result) => (result?.revokedNow ? keyEvent('api_key.revoked', result.key) : null),
        )
      : null;
    if (!revoked) throw AppError.notFound('API key not found.');
    this.forget(id);
    await this.revocations.publish(id);
  }

  /** The owner of an active key, or null for a missing, unknown or revoked one. */
  async authenticate(presented: string | undefined): Promise<ApiKeyPrincipal | null> {
    if (!presented || presented.length > 256) return null;
    this.hearRevocations();
    const hash = tokenHash(presented);
    const cached = this.active.get(hash);
    if (cached) return cached;
    const key = await this.keys.findActiveByHash(hash);
    if (!key || !timingSafeEqual(Buffer.from(key.keyHash), Buffer.from(hash))) return null;
    const principal = { accountId: key.accountId, apiKeyId: key.id };
    if (this.caching) this.active.set(hash, principal);
    return principal;
  }

  /** Caching starts once revocations are heard; until then every request reads Postgres. */
  private hearRevocations(): void {
    this.hearing ??= this.revocations
      .listen((id) => this.forget(id))
      .then(
        () => {
          this.caching = true;
        },
        (error: unknown) => {
          this.logger.warn(`Not caching API keys: revocations unheard (${String(error)})`);
          this.hearing = undefined;
        },
      );
  }

  private forget(apiKeyId: string): void {
    this.active.deleteWhere((principal) => principal.apiKeyId === apiKeyId);
  }
}

/** A key's id, name and display prefix: never the key or its hash. */
function keyEvent(type: 'api_key.issued' | 'api_key.revoked', key: ApiKeyEntity): AuditEventInput {
  return {
    accountId: key.accountId,
    type,
    details: { api_key_id: key.id, name: key.name, prefix: key.keyPrefix },
  };
}
