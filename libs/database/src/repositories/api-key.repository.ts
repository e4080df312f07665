import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { ApiKeyEntity } from '../entities';

@Injectable()
export class ApiKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Inserts the key unless its account already holds `maxActive` unrevoked keys; false then.
   * The account's row is locked first, so concurrent issues for one account are counted one
   * after another (each count is a new statement, which sees the keys committed before it).
   */
  async insertWithinCap(key: ApiKeyEntity, maxActive: number): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [key.accountId]);
      const active = await manager
        .getRepository(ApiKeyEntity)
        .countBy({ accountId: key.accountId, revokedAt: IsNull() });
      if (active >= maxActive) return false;
      await manager.getRepository(ApiKeyEntity).insert(key);
      return true;
    });
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
