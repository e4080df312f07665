import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A managed wallet's key either sealed here (SIGNER_BACKEND=local: its ciphertext and the master
 * key it is sealed under) or held by a PKCS#11 token (pkcs11: only the token's id of the key,
 * CKA_ID in hex; the private key never leaves the token). Exactly one of the two.
 */
export class TokenHeldWalletKeys1766600000000 implements MigrationInterface {
  name = 'TokenHeldWalletKeys1766600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE managed_wallets
        ALTER COLUMN secret_ciphertext DROP NOT NULL,
        ALTER COLUMN secret_key_id DROP NOT NULL,
        ADD COLUMN token_key_id text,
        ADD CONSTRAINT managed_wallets_one_key_holder CHECK (
          (secret_ciphertext IS NOT NULL AND secret_key_id IS NOT NULL AND token_key_id IS NULL)
          OR (secret_ciphertext IS NULL AND secret_key_id IS NULL AND token_key_id IS NOT NULL))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE managed_wallets
        DROP CONSTRAINT managed_wallets_one_key_holder,
        DROP COLUMN token_key_id,
        ALTER COLUMN secret_ciphertext SET NOT NULL,
        ALTER COLUMN secret_key_id SET NOT NULL`);
  }
}
