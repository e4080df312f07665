import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each operation counts against its account's daily cap (docs/security.md#signing-policies):
 * the most any one of its signings can cost. An operation signed again (a Solana blockhash that
 * expired unlanded, an EVM replacement, two workers racing to sign it) lands at most one of its
 * transactions, so the day's spend counts only what a new signing may cost beyond what its
 * operation counted already.
 */
export class NativeSpendPerOperation1766900000000 implements MigrationInterface {
  name = 'NativeSpendPerOperation1766900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE native_spend_operations (
        operation_id uuid PRIMARY KEY REFERENCES operations(id) ON DELETE CASCADE,
        day date NOT NULL,
        amount numeric(78, 0) NOT NULL CHECK (amount >= 0)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE native_spend_operations`);
  }
}
