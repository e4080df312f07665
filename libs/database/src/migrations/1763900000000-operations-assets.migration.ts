import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OperationsAssets1763900000000 implements MigrationInterface {
  name = 'OperationsAssets1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE operations (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        kind text NOT NULL,
        network text NOT NULL,
        chain_key text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'signed', 'submitted', 'confirmed', 'failed')),
        intent jsonb NOT NULL,
        details jsonb NOT NULL DEFAULT '{}',
        metadata_id uuid,
        signer text NOT NULL,
        nonce bigint,
        signed_tx text,
        tx_hash text,
        result jsonb,
        error_code text,
        error_message text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX operations_account_created_idx ON operations (account_id, created_at DESC, id DESC)`,
    );
    await runner.query(
      `CREATE INDEX operations_unsettled_idx ON operations (updated_at)
       WHERE status IN ('queued', 'signed', 'submitted')`,
    );
    // The last line of defence against a doubled send: one transaction in flight per nonce of
    // a wallet. (Settled ones may share a nonce: a chain that was reset reuses them.)
    await runner.query(
      `CREATE UNIQUE INDEX operations_wallet_nonce_idx ON operations (chain_key, signer, nonce)
       WHERE status IN ('signed', 'submitted')`,
    );
    await runner.query(`
      CREATE TABLE idempotency_keys (
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        key text NOT NULL,
        request_hash text NOT NULL,
        operation_id uuid NOT NULL REFERENCES operations(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, key)
      )`);
    await runner.query(`
      CREATE TABLE nonce_ledger (
        chain_key text NOT NULL,
        address text NOT NULL,
        next_nonce bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chain_key, address)
      )`);
    await runner.query(`
      CREATE TABLE metadata_documents (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        document jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE assets (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('token', 'collection')),
        network text NOT NULL,
        chain_key text NOT NULL,
        address text NOT NULL,
        owner text NOT NULL,
        name text NOT NULL,
        symbol text NOT NULL,
        decimals integer,
        metadata_id uuid REFERENCES metadata_documents(id),
        metadata_uri text,
        details jsonb NOT NULL DEFAULT '{}',
        operation_id uuid NOT NULL REFERENCES operations(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (chain_key, address)
      )`);
    await runner.query(`
      CREATE TABLE nft_items (
        id uuid PRIMARY KEY,
        collection_id uuid NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
        token_id text NOT NULL,
        mint_address text NOT NULL,
        owner text NOT NULL,
        burned boolean NOT NULL DEFAULT false,
        name text NOT NULL,
        metadata_id uuid REFERENCES metadata_documents(id),
        metadata_uri text,
        details jsonb NOT NULL DEFAULT '{}',
        operation_id uuid NOT NULL REFERENCES operations(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (collection_id, token_id)
      )`);
    await runner.query(`CREATE INDEX nft_items_mint_idx ON nft_items (mint_address)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of [
      'nft_items',
      'assets',
      'metadata_documents',
      'nonce_ledger',
      'idempotency_keys',
      'operations',
    ]) {
      await runner.query(`DROP TABLE ${table}`);
    }
  }
}
