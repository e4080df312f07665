import { Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { AppError, newId } from '@app/common';
import { ApiKeyRepository, type ApiKeyEntity } from '@app/database';
import { newApiKey, tokenHash } from '../security/tokens';

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface IssuedApiKey extends ApiKeyView {
  /** The whole key: returned once, at issue, and never again. */
  key: string;
}

export interface ApiKeyPrincipal {
  accountId: string;
  apiKeyId: string;
}

const DISPLAY_PREFIX_LENGTH = 12;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class ApiKeyService {
  constructor(private readonly keys: ApiKeyRepository) {}

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
    await this.keys.insert(entity);
    return { ...toView(entity), key };
  }

  async list(accountId: string): Promise<ApiKeyView[]> {
    return (await this.keys.listForAccount(accountId)).map(toView);
  }

  async revoke(accountId: string, id: string): Promise<void> {
    if (!UUID.test(id) || !(await this.keys.revoke(accountId, id, new Date()))) {
      throw AppError.notFound('API key not found.');
    }
  }

  /** The owner of an active key, or null for a missing, unknown or revoked one. */
  async authenticate(presented: string | undefined): Promise<ApiKeyPrincipal | null> {
    if (!presented || presented.length > 256) return null;
    const hash = tokenHash(presented);
    const key = await this.keys.findActiveByHash(hash);
    if (!key || !timingSafeEqual(Buffer.from(key.keyHash), Buffer.from(hash))) return null;
    return { accountId: key.accountId, apiKeyId: key.id };
  }
}

function toView(key: ApiKeyEntity): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.keyPrefix,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
