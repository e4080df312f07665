import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Envelope encryption of managed wallets' keys (SIGNER_BACKEND=local): a wallet's secret under a
 * data key of its own (`secret_ciphertext`), the data key wrapped by the master key
 * `secret_key_id` (`data_key`), so that rotating the master key (`npm run keys:rotate`) wraps the
 * data keys again and never touches a secret. Rows sealed before (no `data_key`: the secret under
 * the master key itself) are moved to the envelope by the rotation. An index finds the
 * operations whose new mint secret a rotation must seal again without reading every operation.
 */
export class WalletDataKeys1766700000000 implements MigrationInterface {
  name = 'WalletDataKeys1766700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE managed_wallets
        ADD COLUMN data_key bytea,
        ADD CONSTRAINT managed_wallets_data_key_sealed CHECK (
          data_key IS NULL OR secret_ciphertext IS NOT NULL)`);
    await runner.query(`
      CREATE INDEX operations_new_mint_key ON operations (new_mint_key_id)
        WHERE new_mint_secret IS NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX operations_new_mint_key`);
    await runner.query(`
      ALTER TABLE managed_wallets
        DROP CONSTRAINT managed_wallets_data_key_sealed,
        DROP COLUMN data_key`);
  }
}
