import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { ApiKeyEntity } from '../entities';
import { managerOf, outsideTransaction, type WorkScope } from '../unit-of-work';

@Injectable()
export class ApiKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Inserts the key unless its account already holds `maxActive` unrevoked keys; false then.
   * Runs in the caller's transaction (`scope`): the account's row is locked first, so
   * concurrent issues for one account are counted one after another.
   */
  async insertWithinCap(key: ApiKeyEntity, maxActive: number, scope: WorkScope): Promise<boolean> {
    const manager = managerOf(scope);
    // NO KEY UPDATE: serializes issuers of one account, yet leaves the row readable to foreign
    // key checks (the audit trail's insert reads it while holding the trail's lock: FOR UPDATE
    // here deadlocked with it).
    await manager.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [key.accountId]);
    const active = await manager
      .getRepository(ApiKeyEntity)
      .countBy({ accountId: key.accountId, revokedAt: IsNull() });
    if (active >= maxActive) return false;
    await manager.getRepository(ApiKeyEntity).insert(key);
    return true;
  }

  findActiveByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.dataSource.getRepository(ApiKeyEntity).findOneBy({ keyHash, revokedAt: IsNull() });
  }

  listForAccount(accountId: string): Promise<ApiKeyEntity[]> {
    return this.dataSource
      .getRepository(ApiKeyEntity)
      .find({ where: { accountId }, order: { createdAt: 'DESC' } });
  }

  /**
   * Revokes a key of the account; returns the key and whether this call revoked it (false when
   * it was revoked already), or null when the account has no such key.
   */
  async revoke(
    accountId: string,
    id: string,
    at: Date,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<{ key: ApiKeyEntity; revokedNow: boolean } | null> {
    const keys = managerOf(scope).getRepository(ApiKeyEntity);
    const key = await keys.findOneBy({ id, accountId });
    if (!key) return null;
    if (key.revokedAt) return { key, revokedNow: false };
    const update = await keys.update({ id, accountId, revokedAt: IsNull() }, { revokedAt: at });
    return { key, revokedNow: update.affected === 1 };
  }
}
