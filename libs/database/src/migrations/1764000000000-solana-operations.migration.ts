import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Solana operations: the signed transaction's blockhash expiry (when re-signing becomes safe)
 * and the sealed seed of the mint account an operation creates (so a retry reuses it).
 */
export class SolanaOperations1764000000000 implements MigrationInterface {
  name = 'SolanaOperations1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE operations
        ADD COLUMN last_valid_block_height bigint,
        ADD COLUMN ephemeral_secret bytea,
        ADD COLUMN ephemeral_key_id text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE operations
        DROP COLUMN ephemeral_key_id,
        DROP COLUMN ephemeral_secret,
        DROP COLUMN last_valid_block_height`);
  }
}
