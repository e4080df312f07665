import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { managerOf, scopeOf, type WorkScope } from '../unit-of-work';

/** A wait for a wallet's send lock this long is logged: a batch is holding it that long. */
const SLOW_LOCK_MS = 5_000;

/** One connection holding a wallet's send lock: every query of the send runs on it. */
export interface WalletSession {
  scope: WorkScope;
  /** Runs `work` in a transaction on the session's connection. */
  transaction(work: () => Promise<void>): Promise<void>;
}

/** The next nonce of each (chain, wallet), read and written under the wallet's send lock. */
@Injectable()
export class NonceLedgerRepository {
  private readonly logger = new Logger(NonceLedgerRepository.name);

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` holding the wallet's send lock (a Postgres advisory lock, shared by every worker
   * process) on a connection of its own. While it is held, every query of the send must run on
   * `session.scope`: waiting for a second pool connection under the lock could deadlock.
   */
  async withWalletLock<T>(
    wallet: string,
    work: (session: WalletSession) => Promise<T>,
  ): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    const session: WalletSession = {
      scope: scopeOf(runner.manager),
      transaction: async (step) => {
        await runner.startTransaction();
        try {
          await step();
          await runner.commitTransaction();
        } catch (error) {
          await runner.rollbackTransaction();
          throw error;
        }
      },
    };
    try {
      const asked = Date.now();
      await runner.query('SELECT pg_advisory_lock(hashtext($1))', [wallet]);
      const waitedMs = Date.now() - asked;
      if (waitedMs >= SLOW_LOCK_MS) {
        this.logger.warn(`Waited ${waitedMs} ms for the send lock of ${wallet}`);
      }
      try {
        return await work(session);
      } finally {
        await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [wallet]);
      }
    } finally {
      await runner.release();
    }
  }

  async read(scope: WorkScope, chainKey: string, address: string): Promise<bigint | null> {
    const rows: { next_nonce: string }[] = await managerOf(scope).query(
      'SELECT next_nonce FROM nonce_ledger WHERE chain_key = $1 AND address = $2',
      [chainKey, address],
    );
    return rows[0] ? BigInt(rows[0].next_nonce) : null;
  }

  async write(scope: WorkScope, chainKey: string, address: string, next: bigint): Promise<void> {
    await managerOf(scope).query(
      `INSERT INTO nonce_ledger (chain_key, address, next_nonce, updated_at)
       VALUES ($1, $2, $3, now())
       ON CONFLICT (chain_key, address) DO UPDATE SET next_nonce = $3, updated_at = now()`,
      [chainKey, address, next.toString()],
    );
  }
}
