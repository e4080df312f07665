import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signing policies (docs/security.md#signing-policies): an account's rules, one row (none: no
 * rules), and what its wallets signed away per network and UTC day, counted at signing as the
 * most each transaction can cost, so the day's cap holds however many sign at once.
 */
export class SigningPolicies1766800000000 implements MigrationInterface {
  name = 'SigningPolicies1766800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE account_policies (
        account_id uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
        policy jsonb NOT NULL CHECK (jsonb_typeof(policy) = 'object'),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE native_spend (
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        network text NOT NULL,
        day date NOT NULL,
        spent numeric(78, 0) NOT NULL CHECK (spent >= 0),
        PRIMARY KEY (account_id, network, day)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE native_spend`);
    await runner.query(`DROP TABLE account_policies`);
  }
}
