import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every operation ends: how many runs of an operation ended in a transient failure, the last
 * one's reason (bounded, client-safe), and when the first one happened (OPERATION_DEADLINE_MS
 * counts from there).
 */
export class OperationRetries1765100000000 implements MigrationInterface {
  name = 'OperationRetries1765100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE operations
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN last_error text,
        ADD COLUMN retrying_since timestamptz`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE operations
        DROP COLUMN retrying_since,
        DROP COLUMN last_error,
        DROP COLUMN attempts`);
  }
}
