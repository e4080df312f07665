import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A signed chain transaction is stored once, in `transactions` (its bytes, nonce or blockhash
 * expiry, fees): the only home of signed bytes (`operations.signed_tx` goes). Which operations
 * it carries is `operation_transactions`, one row per item of the transaction: every transaction
 * carries one operation today (item 0), a batch will carry several. Its key (chain, hash, item)
 * still gives each item to one operation only, and the foreign key from `operations` still makes
 * the transaction an operation points at one that carries it.
 *
 * A Solana operation that creates a mint now keeps the mint's address (`new_mint_address`):
 * its view showed it while in flight by reading the transaction's bytes.
 */
export class Transactions1766000000000 implements MigrationInterface {
  name = 'Transactions1766000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE transactions (
        chain_key text NOT NULL,
        tx_hash text NOT NULL,
        nonce bigint,
        last_valid_block_height bigint,
        fees jsonb,
        signed_tx text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chain_key, tx_hash)
      )`);
    await runner.query(`
      INSERT INTO transactions
        (chain_key, tx_hash, nonce, last_valid_block_height, fees, signed_tx, created_at)
      SELECT chain_key, tx_hash, nonce, last_valid_block_height, fees, signed_tx, created_at
      FROM operation_transactions`);

    await runner.query(`ALTER TABLE operations DROP CONSTRAINT operations_tx_is_own`);
    await runner.query(`
      ALTER TABLE operation_transactions
        DROP CONSTRAINT operation_transactions_pkey,
        ADD COLUMN item smallint NOT NULL DEFAULT 0,
        ADD PRIMARY KEY (chain_key, tx_hash, item),
        ADD CONSTRAINT operation_transactions_transaction
          FOREIGN KEY (chain_key, tx_hash) REFERENCES transactions (chain_key, tx_hash),
        DROP COLUMN nonce,
        DROP COLUMN last_valid_block_height,
        DROP COLUMN fees,
        DROP COLUMN signed_tx,
        DROP COLUMN created_at`);
    await runner.query(`
      ALTER TABLE operations ADD CONSTRAINT operations_tx_is_own
        FOREIGN KEY (chain_key, tx_hash, id)
        REFERENCES operation_transactions (chain_key, tx_hash, operation_id) NOT VALID`);

    await runner.query(`ALTER TABLE operations DROP COLUMN signed_tx`);
    await runner.query(`ALTER TABLE operations ADD COLUMN new_mint_address text`);

    // The audit entry of a signing reads the transaction's nonce from its new home.
    await runner.query(auditManagedKeyUse('transactions'));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE operations DROP COLUMN new_mint_address`);
    await runner.query(`ALTER TABLE operations ADD COLUMN signed_tx text`);
    await runner.query(`
      UPDATE operations o SET signed_tx = t.signed_tx
      FROM transactions t WHERE t.chain_key = o.chain_key AND t.tx_hash = o.tx_hash`);
    await runner.query(`ALTER TABLE operations DROP CONSTRAINT operations_tx_is_own`);
    await runner.query(`
      ALTER TABLE operation_transactions
        ADD COLUMN nonce bigint,
        ADD COLUMN last_valid_block_height bigint,
        ADD COLUMN fees jsonb,
        ADD COLUMN signed_tx text,
        ADD COLUMN created_at timestamptz NOT NULL DEFAULT now()`);
    await runner.query(`
      UPDATE operation_transactions l
      SET nonce = t.nonce, last_valid_block_height = t.last_valid_block_height, fees = t.fees,
          signed_tx = t.signed_tx, created_at = t.created_at
      FROM transactions t WHERE t.chain_key = l.chain_key AND t.tx_hash = l.tx_hash`);
    await runner.query(`
      ALTER TABLE operation_transactions
        DROP CONSTRAINT operation_transactions_transaction,
        DROP CONSTRAINT operation_transactions_pkey,
        DROP COLUMN item,
        ALTER COLUMN signed_tx SET NOT NULL,
        ADD PRIMARY KEY (chain_key, tx_hash)`);
    await runner.query(`
      ALTER TABLE operations ADD CONSTRAINT operations_tx_is_own
        FOREIGN KEY (chain_key, tx_hash, id)
        REFERENCES operation_transactions (chain_key, tx_hash, operation_id) NOT VALID`);
    await runner.query(auditManagedKeyUse('link-row'));
    await runner.query(`DROP TABLE transactions`);
  }
}

/** The audit trigger's function, the nonce read from `transactions` or (before) the link row. */
function auditManagedKeyUse(nonceFrom: 'transactions' | 'link-row'): string {
  const [nonce, join] =
    nonceFrom === 'transactions'
      ? [
          't.nonce',
          'JOIN transactions t ON t.chain_key = NEW.chain_key AND t.tx_hash = NEW.tx_hash',
        ]
      : ['NEW.nonce', ''];
  return `
    CREATE OR REPLACE FUNCTION audit_managed_key_use() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO audit_events (account_id, type, details)
      SELECT o.account_id, 'managed_key.used', jsonb_strip_nulls(jsonb_build_object(
          'operation_id', o.id, 'kind', o.kind, 'network', o.network, 'signer', o.signer,
          'tx', NEW.tx_hash, 'nonce', ${nonce}::text))
        FROM operations o ${join} WHERE o.id = NEW.operation_id;
      RETURN NULL;
    END
    $$`;
}
