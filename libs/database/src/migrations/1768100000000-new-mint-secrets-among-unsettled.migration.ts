import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A Solana mint's sealed secret is found, by a master key rotation, among the unsettled
 * operations (`operations_unsettled_idx`), not through an index of its own: since
 * 1767600000000 an operation holds one only until it settles (`operations_secret_until_settled`),
 * so the unsettled ones are where they all are. That index took an entry at every Solana signing
 * (72 bytes of WAL a mint, `bench:mint-cost`) for a job that runs when a master key is rotated.
 */
export class NewMintSecretsAmongUnsettled1768100000000 implements MigrationInterface {
  name = 'NewMintSecretsAmongUnsettled1768100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX operations_new_mint_key`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX operations_new_mint_key ON operations (new_mint_key_id)
         WHERE new_mint_secret IS NOT NULL`,
    );
  }
}
