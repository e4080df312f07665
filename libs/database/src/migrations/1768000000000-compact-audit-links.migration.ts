import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An audit entry stores its hash as 32 bytes, not 64 hex characters, and no longer a copy of the
 * hash before it (`prev_hash`): that is the previous entry's own `hash`, which readers take from
 * it (`AuditEventRepository`). The chain is the same: each hash still covers the previous hash
 * (as hex) and the entry's content, so every stored hash stays valid and an edit, a re-hash or a
 * deletion is detected as before (`npm run audit:verify`). A signing's entry was about 470 bytes
 * of WAL, about 130 of them these two hex strings.
 *
 * Turning `hash` into bytes rewrites the table once, in the migration's transaction (the
 * append-only triggers do not see a rewrite); on a large trail, run it in a quiet hour.
 */
export class CompactAuditLinks1768000000000 implements MigrationInterface {
  name = 'CompactAuditLinks1768000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(linkFunction(LINKING_BY_POSITION));
    await runner.query(`ALTER TABLE audit_events DROP COLUMN prev_hash`);
    await runner.query(
      `ALTER TABLE audit_events ALTER COLUMN hash TYPE bytea USING decode(hash, 'hex')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE audit_events ALTER COLUMN hash TYPE text USING encode(hash, 'hex')`,
    );
    await runner.query(`ALTER TABLE audit_events ADD COLUMN prev_hash text`);
    await runner.query(`ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only`);
    await runner.query(`
      UPDATE audit_events e SET prev_hash = p.prev_hash
      FROM (SELECT id, COALESCE(lag(hash) OVER (PARTITION BY account_id ORDER BY seq),
                                repeat('0', 64)) AS prev_hash
            FROM audit_events) p
      WHERE p.id = e.id`);
    await runner.query(`ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only`);
    await runner.query(`ALTER TABLE audit_events ALTER COLUMN prev_hash SET NOT NULL`);
    await runner.query(linkFunction(LINKING_WITH_A_COPY));
  }
}

/** `audit_events_link` (migration 1765200000000) with `link` numbering, stamping and hashing. */
function linkFunction(link: string): string {
  return `
    CREATE OR REPLACE FUNCTION audit_events_link() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      previous record;
    BEGIN
      -- One writer per account at a time, until its transaction ends; 1635083369 is 'audi'.
      PERFORM pg_advisory_xact_lock(1635083369, hashtext(NEW.account_id::text));
      SELECT seq, hash INTO previous FROM audit_events
        WHERE account_id = NEW.account_id ORDER BY seq DESC LIMIT 1;
      NEW.seq := COALESCE(previous.seq, 0) + 1;
      NEW.occurred_at := date_trunc('microseconds', clock_timestamp());
      NEW.details := COALESCE(NEW.details, '{}'::jsonb);
      ${link}
      RETURN NEW;
    END
    $$`;
}

/** The canonical content, as audit-chain.ts (audit:verify) recomputes it, hashed to bytes. */
const LINKING_BY_POSITION = `NEW.hash := sha256(convert_to(concat_ws(E'\\n',
        COALESCE(encode(previous.hash, 'hex'), repeat('0', 64)), NEW.seq::text,
        NEW.account_id::text, NEW.type,
        to_char(NEW.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        NEW.details::text), 'UTF8'));`;

/** As migration 1765200000000 linked: a copy of the previous hash, both as hex. */
const LINKING_WITH_A_COPY = `NEW.prev_hash := COALESCE(previous.hash, repeat('0', 64));
      NEW.hash := encode(sha256(convert_to(concat_ws(E'\\n',
        NEW.prev_hash, NEW.seq::text, NEW.account_id::text, NEW.type,
        to_char(NEW.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        NEW.details::text), 'UTF8')), 'hex');`;
