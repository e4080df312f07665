import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { IdempotencyKeyEntity } from '../entities';

@Injectable()
export class IdempotencyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims the key for this request; returns false when the key already exists. Concurrent
   * claims of one key wait on the unique index, so exactly one wins.
   */
  async claim(manager: EntityManager, entry: IdempotencyKeyEntity): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(IdempotencyKeyEntity)
      .values(entry)
      .orIgnore()
      .returning('key')
      .execute();
    return (result.raw as unknown[]).length > 0;
  }

  /** The live entry of a key (entries older than the retention window are ignored). */
  find(accountId: string, key: string, notBefore: Date): Promise<IdempotencyKeyEntity | null> {
    return this.dataSource
      .getRepository(IdempotencyKeyEntity)
      .createQueryBuilder('entry')
      .where('entry.account_id = :accountId AND entry.key = :key', { accountId, key })
      .andWhere('entry.created_at >= :notBefore', { notBefore })
      .getOne();
  }

  /** Frees a key past the retention window so it can be claimed again. */
  async expire(
    manager: EntityManager,
    accountId: string,
    key: string,
    notBefore: Date,
  ): Promise<void> {
    await manager
      .createQueryBuilder()
      .delete()
      .from(IdempotencyKeyEntity)
      .where('account_id = :accountId AND key = :key AND created_at < :notBefore', {
        accountId,
        key,
        notBefore,
      })
      .execute();
  }
}
