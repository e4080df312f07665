import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf, outsideTransaction, type WorkScope } from '../unit-of-work';

/** Native currency counted against an account's daily cap on one network (base units). */
export interface SpendReservation {
  accountId: string;
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
   * Adds `amount` to the day's spend when it stays within `cap`, in one statement (the row's
   * lock orders concurrent signers): true when counted, false when it would pass the cap.
   */
  async reserve(
    reservation: SpendReservation,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<boolean> {
    if (reservation.amount > reservation.cap) return false;
    const rows: unknown[] = await managerOf(scope).query(
      `INSERT INTO native_spend (account_id, network, day, spent) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, network, day) DO UPDATE
         SET spent = native_spend.spent + EXCLUDED.spent
         WHERE native_spend.spent + EXCLUDED.spent <= $5
       RETURNING 1`,
      [
        reservation.accountId,
        reservation.network,
        reservation.day,
        String(reservation.amount),
        String(reservation.cap),
      ],
    );
    return rows.length > 0;
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
