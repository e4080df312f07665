import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { ApiKeyEntity } from '../entities';

@Injectable()
export class ApiKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(key: ApiKeyEntity): Promise<void> {
    await this.dataSource.getRepository(ApiKeyEntity).insert(key);
  }

  findActiveByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.dataSource.getRepository(ApiKeyEntity).findOneBy({ keyHash, revokedAt: IsNull() });
  }

  listForAccount(accountId: string): Promise<ApiKeyEntity[]> {
    return this.dataSource
      .getRepository(ApiKeyEntity)
      .find({ where: { accountId }, order: { createdAt: 'DESC' } });
  }

  /** Revokes a key of the account; returns false when the account has no such key. */
  async revoke(accountId: string, id: string, at: Date): Promise<boolean> {
    const key = await this.dataSource.getRepository(ApiKeyEntity).findOneBy({ id, accountId });
    if (!key) return false;
    if (!key.revokedAt) {
      await this.dataSource
        .getRepository(ApiKeyEntity)
        .update({ id, accountId, revokedAt: IsNull() }, { revokedAt: at });
    }
    return true;
  }
}
