import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A new mint's secret (the sealed keypair a Solana NFT mint creates its mint account with) is
 * kept while its operation may still sign, and no longer: each statement that settles an
 * operation drops it (`SECRET_DROPPED`), and a constraint refuses a settled row that holds one,
 * so a settling write that forgot fails rather than keeps it. Settled is final
 * (`operations_settled_once_final`), and once the mint account exists the token program owns it:
 * the key signs nothing again. Every Solana item's key used to stay in the table for good; rows
 * settled before are cleared here.
 *
 * The index of the secrets' master keys (for a key rotation) then holds in-flight rows only, and
 * a mint writes one entry in it (at the signing) rather than two (the settlement's new version
 * of the row was a second). Not a trigger: a BEFORE UPDATE row trigger locks each row it may
 * fire on, a WAL record for every update of every operation (measured: 54 bytes a mint).
 */
export class NewMintSecretsUntilSettled1767600000000 implements MigrationInterface {
  name = 'NewMintSecretsUntilSettled1767600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      UPDATE operations SET new_mint_secret = NULL, new_mint_key_id = NULL
      WHERE settled_at IS NOT NULL AND new_mint_secret IS NOT NULL`);
    await runner.query(`
      ALTER TABLE operations ADD CONSTRAINT operations_secret_until_settled
        CHECK (settled_at IS NULL OR new_mint_secret IS NULL)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE operations DROP CONSTRAINT operations_secret_until_settled`);
  }
}
