import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { IdempotencyKeyEntity } from '../entities';
import { scopeOf, type WorkScope } from '../unit-of-work';

@Injectable()
export class IdempotencyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `write` (the request's rows) and claims its key in one transaction, after freeing the
   * key if its last claim is older than `notBefore`. False, with nothing written, when an earlier
   * request holds the key. Concurrent claims of one key wait on the unique index: one wins.
   */
  async claimWith(
    entry: IdempotencyKeyEntity,
    notBefore: Date,
    write: (scope: WorkScope) => Promise<void>,
  ): Promise<boolean> {
    try {
      await this.dataSource.transaction(async (manager) => {
        await write(scopeOf(manager));
        await this.expire(manager, entry.accountId, entry.key, notBefore);
        if (!(await this.claim(manager, entry))) throw new KeyAlreadyClaimed();
      });
      return true;
    } catch (error) {
      if (error instanceof KeyAlreadyClaimed) return false;
      throw error;
    }
  }

  /** Claims the key; false when it already exists. */
  private async claim(manager: EntityManager, entry: IdempotencyKeyEntity): Promise<boolean> {
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
  private async expire(
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

/** Rolls back a request's rows when an earlier request holds its key. */
class KeyAlreadyClaimed extends Error {}
