import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every transaction an operation signs (a first signing, a fee bump, a re-signing after a
 * blockhash expired) is a row of its own, stored before it is sent. The primary key makes a
 * transaction id belong to one operation only, and the foreign key from `operations` makes the
 * transaction an operation points at one of its own: two operations can never share (and both
 * be confirmed by) one chain transaction. The foreign key is NOT VALID so that databases holding
 * rows from before it (identical Solana writes could share a signature then) still migrate; new
 * and changed rows are checked.
 */
export class OperationTransactions1765000000000 implements MigrationInterface {
  name = 'OperationTransactions1765000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE operation_transactions (
        chain_key text NOT NULL,
        tx_hash text NOT NULL,
        operation_id uuid NOT NULL REFERENCES operations (id) ON DELETE CASCADE,
        nonce bigint,
        last_valid_block_height bigint,
        fees jsonb,
        signed_tx text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chain_key, tx_hash),
        UNIQUE (chain_key, tx_hash, operation_id)
      )`);
    await runner.query(
      `CREATE INDEX operation_transactions_operation ON operation_transactions (operation_id)`,
    );
    await runner.query(`
      INSERT INTO operation_transactions
        (chain_key, tx_hash, operation_id, nonce, last_valid_block_height, signed_tx, created_at)
      SELECT chain_key, tx_hash, id, nonce, last_valid_block_height, signed_tx, updated_at
      FROM operations WHERE tx_hash IS NOT NULL AND signed_tx IS NOT NULL
      ORDER BY created_at
      ON CONFLICT DO NOTHING`);
    await runner.query(`
      ALTER TABLE operations ADD CONSTRAINT operations_tx_is_own
        FOREIGN KEY (chain_key, tx_hash, id)
        REFERENCES operation_transactions (chain_key, tx_hash, operation_id) NOT VALID`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE operations DROP CONSTRAINT operations_tx_is_own`);
    await runner.query(`DROP TABLE operation_transactions`);
  }
}
