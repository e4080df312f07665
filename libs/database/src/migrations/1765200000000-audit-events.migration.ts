import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log: an append-only, per-account hash chain of security-relevant events.
 *
 * - Writers insert only (account_id, type, details). A BEFORE INSERT trigger numbers the entry
 *   (`seq`, 1, 2, ... per account), stamps it and links it: `hash` = sha256(prev_hash + "\n" +
 *   the entry's canonical content), `prev_hash` = the account's previous `hash` (64 zeros for
 *   the first). It takes a per-account advisory transaction lock first, so two events of one
 *   account at once never fork the chain; the unique (account_id, seq) is the backstop. The
 *   same formula is recomputed by `npm run audit:verify` (libs/database/src/audit/audit-chain.ts).
 * - Every signing with a managed key is an entry, made by a trigger on operation_transactions:
 *   the signed transaction and its audit entry are one statement, with no extra round trip.
 * - UPDATE, DELETE and TRUNCATE are refused by triggers, for every role. A superuser can still
 *   disable them; the hash chain is what detects an edit or a deletion made that way.
 * - No ON DELETE CASCADE from accounts: an account's trail is not deleted with it by accident.
 */
export class AuditEvents1765200000000 implements MigrationInterface {
  name = 'AuditEvents1765200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audit_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts (id),
        seq bigint NOT NULL,
        type text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
        occurred_at timestamptz NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        UNIQUE (account_id, seq)
      )`);
    await runner.query(`
      CREATE FUNCTION audit_events_link() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        previous record;
      BEGIN
        -- One writer per account at a time, until its transaction ends. The two-key form has
        -- its own key space, apart from the one-bigint locks of the send pipeline; 1635083369
        -- is 'audi' in ASCII, the class of these locks.
        PERFORM pg_advisory_xact_lock(1635083369, hashtext(NEW.account_id::text));
        SELECT seq, hash INTO previous FROM audit_events
          WHERE account_id = NEW.account_id ORDER BY seq DESC LIMIT 1;
        NEW.seq := COALESCE(previous.seq, 0) + 1;
        NEW.prev_hash := COALESCE(previous.hash, repeat('0', 64));
        NEW.occurred_at := date_trunc('microseconds', clock_timestamp());
        NEW.details := COALESCE(NEW.details, '{}'::jsonb);
        -- The canonical content; audit-chain.ts (audit:verify) recomputes the same.
        NEW.hash := encode(sha256(convert_to(concat_ws(E'\\n',
          NEW.prev_hash, NEW.seq::text, NEW.account_id::text, NEW.type,
          to_char(NEW.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          NEW.details::text), 'UTF8')), 'hex');
        RETURN NEW;
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER audit_events_link BEFORE INSERT ON audit_events
        FOR EACH ROW EXECUTE FUNCTION audit_events_link()`);
    await runner.query(`
      CREATE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP
          USING ERRCODE = 'insufficient_privilege';
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
        FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change()`);
    await runner.query(`
      CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
        FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change()`);
    // A use of a managed key: every transaction an operation signs, recorded with it.
    await runner.query(`
      CREATE FUNCTION audit_managed_key_use() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO audit_events (account_id, type, details)
        SELECT o.account_id, 'managed_key.used', jsonb_strip_nulls(jsonb_build_object(
            'operation_id', o.id, 'kind', o.kind, 'network', o.network, 'signer', o.signer,
            'tx', NEW.tx_hash, 'nonce', NEW.nonce::text))
          FROM operations o WHERE o.id = NEW.operation_id;
        RETURN NULL;
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER operation_transactions_audit AFTER INSERT ON operation_transactions
        FOR EACH ROW EXECUTE FUNCTION audit_managed_key_use()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER operation_transactions_audit ON operation_transactions`);
    await runner.query(`DROP FUNCTION audit_managed_key_use()`);
    await runner.query(`DROP TABLE audit_events`);
    await runner.query(`DROP FUNCTION audit_events_refuse_change()`);
    await runner.query(`DROP FUNCTION audit_events_link()`);
  }
}
