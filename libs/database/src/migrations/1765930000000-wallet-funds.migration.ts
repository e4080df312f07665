import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last balance read of each watched managed wallet on a network, and whether it was below
 * the network's threshold then. The flag flips in the same transaction as the event that
 * announces it (`wallet.balance_low`, `wallet.balance_restored`), so each crossing is announced
 * once however many workers read the balance. `balance` is in base units (wei, lamports).
 */
export class WalletFunds1765930000000 implements MigrationInterface {
  name = 'WalletFunds1765930000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE wallet_funds (
        network text NOT NULL,
        address text NOT NULL,
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        balance numeric(78, 0) NOT NULL,
        low boolean NOT NULL,
        checked_at timestamptz NOT NULL,
        PRIMARY KEY (network, address)
      )`);
    await runner.query(`CREATE INDEX wallet_funds_low ON wallet_funds (network) WHERE low`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE wallet_funds`);
  }
}
