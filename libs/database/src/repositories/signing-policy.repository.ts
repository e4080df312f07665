import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { managerOf, outsideTransaction, type WorkScope } from '../unit-of-work';

/** Native currency counted against an account's daily cap on one network (base units). */
export interface SpendReservation {
  accountId: string;
  /** The operation signed: it counts the most one of its signings can cost, once. */
  operationId: string;
  network: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  amount: bigint;
  cap: bigint;
}

/** Accounts' signing policies and what their wallets signed away per day (migration 1766800000000). */
@Injectable()
export class SigningPolicyRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(
    accountId: string,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<Record<string, unknown> | null> {
    const rows: { policy: Record<string, unknown> }[] = await managerOf(scope).query(
      `SELECT policy FROM account_policies WHERE account_id = $1`,
      [accountId],
    );
    return rows[0]?.policy ?? null;
  }

  async save(scope: WorkScope, accountId: string, policy: object): Promise<void> {
    await managerOf(scope).query(
      `INSERT INTO account_policies (account_id, policy) VALUES ($1, $2::jsonb)
       ON CONFLICT (account_id) DO UPDATE SET policy = EXCLUDED.policy, updated_at = now()`,
      [accountId, JSON.stringify(policy)],
    );
  }

  /**
   * Counts a signing of `amount` against the day's spend when it stays within `cap`: true when
   * counted, false when it would pass the cap (nothing counted). Only what it may cost beyond
   * what its operation counted that day is added, since one operation lands at most one of its
   * transactions: a signing again (an expired blockhash, a replacement, a race between workers)
   * is not counted twice. The day's row is locked first, so concurrent signers of an account
   * (and of one operation) are counted one after the other.
   */
  async reserve(
    reservation: SpendReservation,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<boolean> {
    if (reservation.amount > reservation.cap) return false;
    const { accountId, operationId, network, day } = reservation;
    return inTransaction(managerOf(scope), async (manager) => {
      await manager.query(
        `INSERT INTO native_spend (account_id, network, day, spent) VALUES ($1, $2, $3, 0)
         ON CONFLICT (account_id, network, day) DO UPDATE SET spent = native_spend.spent`,
        [accountId, network, day],
      );
      const rows: unknown[] = await manager.query(
        `WITH beyond AS (
           SELECT GREATEST($5::numeric - COALESCE((
             SELECT amount FROM native_spend_operations WHERE operation_id = $4 AND day = $3
           ), 0), 0) AS amount
         ), counted AS (
           UPDATE native_spend SET spent = spent + (SELECT amount FROM beyond)
           WHERE account_id = $1 AND network = $2 AND day = $3
             AND spent + (SELECT amount FROM beyond) <= $6
           RETURNING 1
         )
         INSERT INTO native_spend_operations (operation_id, day, amount)
         SELECT $4, $3, $5 FROM counted
         ON CONFLICT (operation_id) DO UPDATE SET
           amount = CASE WHEN native_spend_operations.day = EXCLUDED.day
                         THEN GREATEST(native_spend_operations.amount, EXCLUDED.amount)
                         ELSE EXCLUDED.amount END,
           day = EXCLUDED.day
         RETURNING 1`,
        [accountId, network, day, operationId, String(reservation.amount), String(reservation.cap)],
      );
      return rows.length > 0;
    });
  }

  /** What the account's wallets signed away on `network` on `day` (base units). */
  async spent(accountId: string, network: string, day: string): Promise<bigint> {
    const rows: { spent: string }[] = await this.dataSource.query(
      `SELECT spent FROM native_spend WHERE account_id = $1 AND network = $2 AND day = $3`,
      [accountId, network, day],
    );
    return BigInt(rows[0]?.spent ?? 0);
  }
}

/** `work` in the manager's transaction, or in one of its own when the manager has none. */
function inTransaction<T>(
  manager: EntityManager,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  return manager.queryRunner?.isTransactionActive ? work(manager) : manager.transaction(work);
}
