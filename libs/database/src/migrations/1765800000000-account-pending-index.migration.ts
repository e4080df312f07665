import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An account's operations pending now, by network (the usage view's `pending_now`). Without it
 * the count reads every unsettled operation of every account through operations_unsettled_idx,
 * so one account's backlog slows everyone's dashboard; with it, only the account's own. Status
 * is already in other indexes' predicates, so its updates were never HOT: this adds no new kind
 * of write cost, one small entry per unsettled row version.
 */
export class AccountPendingIndex1765800000000 implements MigrationInterface {
  name = 'AccountPendingIndex1765800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX operations_account_pending_idx ON operations (account_id, network)
         WHERE status IN ('queued', 'signed', 'submitted')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX operations_account_pending_idx`);
  }
}
