import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An operation's events (its detail in the console), found without reading the account's feed. */
export class OperationEventsIndex1765600000000 implements MigrationInterface {
  name = 'OperationEventsIndex1765600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX account_events_operation ON account_events (operation_id)
         WHERE operation_id IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX account_events_operation`);
  }
}
