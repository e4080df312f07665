import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ChainFamily, ConcreteNetwork } from '@app/config';
import { managerOf, type WorkScope } from '../unit-of-work';

/** A managed wallet on one network, whose native balance is watched. */
export interface WatchedWallet {
  accountId: string;
  network: ConcreteNetwork;
  address: string;
}

/** What was stored of a watched wallet's last balance read (migration 1765930000000). */
export interface StoredWalletFunds {
  low: boolean;
  checkedAt: Date;
}

export interface WalletFundsReading extends WatchedWallet {
  /** Base units (wei, lamports). */
  balance: bigint;
  low: boolean;
  /** When the balance was asked for: an older reading never overwrites a newer one. */
  readAt: Date;
}

/**
 * The watched wallets' last balance reads and low flags. The monitor locks a wallet's row,
 * decides, and stores the reading with its event in one transaction.
 */
@Injectable()
export class WalletFundsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Managed wallets worth reading now: those on a network where their account made an
   * operation since `activeSince` or has one unsettled, and those flagged low. The least
   * recently read first, at most `limit`.
   */
  listToCheck(activeSince: Date, limit: number): Promise<WatchedWallet[]> {
    // Each part runs on an index: recent operations per account through
    // operations_account_created_idx, unsettled ones through operations_account_pending_idx.
    return this.dataSource.query(
      `WITH active AS (
         SELECT recent.account_id, recent.network FROM accounts a
           CROSS JOIN LATERAL (
             SELECT DISTINCT o.account_id, o.network FROM operations o
             WHERE o.account_id = a.id AND o.created_at > $1
           ) recent
         UNION
         SELECT account_id, network FROM operations
           WHERE status IN ('queued', 'signed', 'submitted') AND settled_at IS NULL
         UNION
         SELECT account_id, network FROM wallet_funds WHERE low
       )
       SELECT w.account_id AS "accountId", active.network, w.address
       FROM active
       JOIN managed_wallets w ON w.account_id = active.account_id
         AND w.family = CASE WHEN active.network = 'solana' THEN 'solana' ELSE 'evm' END
       LEFT JOIN wallet_funds f ON f.network = active.network AND f.address = w.address
       ORDER BY f.checked_at NULLS FIRST
       LIMIT $2`,
      [activeSince, limit],
    );
  }

  /** The account whose managed wallet of this family has this address, or null. */
  async managedWalletOwner(family: ChainFamily, address: string): Promise<string | null> {
    const rows: { accountId: string }[] = await this.dataSource.query(
      `SELECT account_id AS "accountId" FROM managed_wallets WHERE family = $1 AND address = $2`,
      [family, address],
    );
    return rows[0]?.accountId ?? null;
  }

  /**
   * Locks the wallet's row until the transaction ends (made, not low, if it had none), so that
   * one worker at a time decides whether a reading flips its flag.
   */
  async lock(wallet: WatchedWallet, scope: WorkScope): Promise<StoredWalletFunds> {
    const manager = managerOf(scope);
    await manager.query(
      `INSERT INTO wallet_funds (network, address, account_id, balance, low, checked_at)
       VALUES ($1, $2, $3, 0, false, 'epoch') ON CONFLICT (network, address) DO NOTHING`,
      [wallet.network, wallet.address, wallet.accountId],
    );
    const rows: StoredWalletFunds[] = await manager.query(
      `SELECT low, checked_at AS "checkedAt" FROM wallet_funds
       WHERE network = $1 AND address = $2 FOR UPDATE`,
      [wallet.network, wallet.address],
    );
    return rows[0];
  }

  async store(reading: WalletFundsReading, scope: WorkScope): Promise<void> {
    await managerOf(scope).query(
      `UPDATE wallet_funds SET balance = $3, low = $4, checked_at = $5
       WHERE network = $1 AND address = $2`,
      [reading.network, reading.address, reading.balance.toString(), reading.low, reading.readAt],
    );
  }
}
