import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AccountsKeysWallets1763800000000 implements MigrationInterface {
  name = 'AccountsKeysWallets1763800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY,
        email text NOT NULL UNIQUE CHECK (email = lower(email)),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX sessions_account_idx ON sessions (account_id)`);
    await runner.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        key_prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await runner.query(`CREATE INDEX api_keys_account_idx ON api_keys (account_id, created_at)`);
    await runner.query(`
      CREATE TABLE managed_wallets (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        family text NOT NULL CHECK (family IN ('solana', 'evm')),
        address text NOT NULL,
        secret_ciphertext bytea NOT NULL,
        secret_key_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, family),
        UNIQUE (family, address)
      )`);
    await runner.query(`
      CREATE TABLE created_wallets (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        network text NOT NULL,
        address text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX created_wallets_account_address_idx ON created_wallets (account_id, address)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of [
      'created_wallets',
      'managed_wallets',
      'api_keys',
      'sessions',
      'accounts',
    ]) {
      await runner.query(`DROP TABLE ${table}`);
    }
  }
}
