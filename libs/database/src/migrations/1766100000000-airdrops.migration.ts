import type { MigrationInterface, QueryRunner } from 'typeorm';

const CARRIERS = `('token.mintBatch', 'nft.mintBatch')`;

/**
 * Airdrops (docs/airdrops.md): one request of up to 10,000 mints, a `batches` row.
 *
 * - Each mint is an operation of its own (a *member*: `batch_id`, `batch_index`), readable and
 *   settled one by one. Most are carried by a *carrier* (`carrier_id`): an internal operation
 *   (kind `token.mintBatch` / `nft.mintBatch`) whose one transaction mints for all its members.
 *   A member is carried by at most one carrier at a time; one that runs alone has none.
 * - While in flight a member mirrors its carrier, here in the database so that no path that
 *   moves a carrier can forget it: every transaction the carrier signs also carries its members
 *   (`operation_transactions` items 1..n, in `batch_index` order) and becomes their `tx_hash`;
 *   every in-flight status the carrier takes (signed, submitted, queued again) they take. Their
 *   settlement, with what each produced, is written by the worker.
 * - A managed key's use is audited once per transaction (item 0: the carrier, or a lone
 *   operation), not once per item.
 * - Carriers make no account events; members announce only how they settle
 *   (`operation.confirmed` / `operation.failed`): the batch's 202 is their acceptance, and
 *   `batch.completed` (written by the worker) sums them up.
 * - An Idempotency-Key names the operation or the batch its first request made.
 */
export class Airdrops1766100000000 implements MigrationInterface {
  name = 'Airdrops1766100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE batches (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('token.airdrop', 'nft.airdrop')),
        network text NOT NULL,
        chain_key text NOT NULL,
        asset text NOT NULL,
        signer text NOT NULL,
        total integer NOT NULL CHECK (total > 0),
        status text NOT NULL DEFAULT 'open'
          CHECK (status IN ('open', 'completed', 'completed_with_failures')),
        created_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX batches_account ON batches (account_id, created_at DESC, id DESC)`,
    );
    await runner.query(`
      ALTER TABLE operations
        ADD COLUMN batch_id uuid REFERENCES batches (id) ON DELETE CASCADE,
        ADD COLUMN batch_index integer,
        ADD COLUMN carrier_id uuid REFERENCES operations (id),
        ADD CONSTRAINT operations_member_index CHECK (batch_index IS NULL OR batch_id IS NOT NULL)`);
    await runner.query(`
      CREATE UNIQUE INDEX operations_batch_members ON operations (batch_id, batch_index)
        WHERE batch_index IS NOT NULL`);
    await runner.query(
      `CREATE INDEX operations_carried ON operations (carrier_id) WHERE carrier_id IS NOT NULL`,
    );
    // Batch-minted items' metadata is found by their collection's creating operation.
    await runner.query(`CREATE INDEX assets_operation ON assets (operation_id)`);
    await runner.query(`
      ALTER TABLE idempotency_keys
        ALTER COLUMN operation_id DROP NOT NULL,
        ADD COLUMN batch_id uuid REFERENCES batches (id) ON DELETE CASCADE,
        ADD CONSTRAINT idempotency_keys_one_target
          CHECK ((operation_id IS NULL) <> (batch_id IS NULL))`);

    await runner.query(`
      CREATE FUNCTION carrier_transaction_members() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO operation_transactions (chain_key, tx_hash, item, operation_id)
          SELECT NEW.chain_key, NEW.tx_hash, row_number() OVER (ORDER BY batch_index), id
          FROM operations WHERE carrier_id = NEW.operation_id;
        IF FOUND THEN
          UPDATE operations SET tx_hash = NEW.tx_hash, updated_at = now()
            WHERE carrier_id = NEW.operation_id AND status IN ('queued', 'signed', 'submitted');
        END IF;
        RETURN NULL;
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER carrier_transaction_members AFTER INSERT ON operation_transactions
        FOR EACH ROW WHEN (NEW.item = 0) EXECUTE FUNCTION carrier_transaction_members()`);
    await runner.query(CARRIER_STATUS_MEMBERS);
    await runner.query(`
      CREATE TRIGGER carrier_status_members AFTER UPDATE OF status ON operations
        FOR EACH ROW WHEN (NEW.kind IN ${CARRIERS} AND NEW.status IN ('queued', 'signed', 'submitted')
          AND OLD.status IS DISTINCT FROM NEW.status)
        EXECUTE FUNCTION carrier_status_members()`);

    await runner.query(`DROP TRIGGER operation_transactions_audit ON operation_transactions`);
    await runner.query(`
      CREATE TRIGGER operation_transactions_audit AFTER INSERT ON operation_transactions
        FOR EACH ROW WHEN (NEW.item = 0) EXECUTE FUNCTION audit_managed_key_use()`);
    await runner.query(operationStatusEvent(true));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(operationStatusEvent(false));
    await runner.query(`DROP TRIGGER operation_transactions_audit ON operation_transactions`);
    await runner.query(`
      CREATE TRIGGER operation_transactions_audit AFTER INSERT ON operation_transactions
        FOR EACH ROW EXECUTE FUNCTION audit_managed_key_use()`);
    await runner.query(`DROP TRIGGER carrier_status_members ON operations`);
    await runner.query(`DROP FUNCTION carrier_status_members()`);
    await runner.query(`DROP TRIGGER carrier_transaction_members ON operation_transactions`);
    await runner.query(`DROP FUNCTION carrier_transaction_members()`);
    await runner.query(`DELETE FROM idempotency_keys WHERE batch_id IS NOT NULL`);
    await runner.query(`
      ALTER TABLE idempotency_keys
        DROP CONSTRAINT idempotency_keys_one_target,
        DROP COLUMN batch_id,
        ALTER COLUMN operation_id SET NOT NULL`);
    await runner.query(`DELETE FROM operations WHERE kind IN ${CARRIERS}`);
    await runner.query(`
      ALTER TABLE operations
        DROP CONSTRAINT operations_member_index,
        DROP COLUMN carrier_id,
        DROP COLUMN batch_index,
        DROP COLUMN batch_id`);
    await runner.query(`DROP INDEX assets_operation`);
    await runner.query(`DROP TABLE batches`);
  }
}

/** The operation events trigger, with (`airdrops`) or without the rules for batches (a row trigger until 1766500000000). */
export function operationStatusEvent(airdrops: boolean): string {
  const batchRules = airdrops
    ? `IF NEW.kind IN ${CARRIERS}
          OR (NEW.batch_id IS NOT NULL AND NEW.status NOT IN ('confirmed', 'failed')) THEN
          RETURN NULL;
        END IF;`
    : '';
  return `
    CREATE OR REPLACE FUNCTION operation_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND (NEW.status IS NOT DISTINCT FROM OLD.status
          OR NEW.status NOT IN ('submitted', 'confirmed', 'failed')) THEN
        RETURN NULL;
      END IF;
      IF NEW.status = 'signed' THEN
        RETURN NULL;
      END IF;
      ${batchRules}
      INSERT INTO account_events (account_id, type, operation_id, data)
        VALUES (NEW.account_id, 'operation.' || NEW.status, NEW.id,
                to_jsonb(NEW) - 'new_mint_secret' - 'new_mint_key_id');
      RETURN NULL;
    END
    $$`;
}

/** The function by which members took each in-flight status of their carrier (until 1766400000000). */
export const CARRIER_STATUS_MEMBERS = `
  CREATE FUNCTION carrier_status_members() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE operations SET status = NEW.status, updated_at = now(),
        tx_hash = CASE WHEN NEW.status = 'queued' THEN NULL ELSE tx_hash END
      WHERE carrier_id = NEW.id AND status IN ('queued', 'signed', 'submitted')
        AND status <> NEW.status;
    RETURN NULL;
  END
  $$`;
