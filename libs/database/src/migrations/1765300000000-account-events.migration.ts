import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account's event feed, written as an outbox: every event is a row made in the same
 * transaction as the change it tells of, so no change is ever announced that did not commit,
 * and none commits unannounced.
 *
 * - `seq` numbers an account's events 1, 2, 3, ... with no gap, in commit order: the insert
 *   trigger takes a per-account advisory transaction lock before it reads the last `seq`, and
 *   holds it until commit, so a reader paging `seq > n` never skips an event that commits later
 *   with a smaller number.
 * - Operation events are made by the database itself, from any statement that changes an
 *   operation's status (insert: `operation.queued`; update to submitted, confirmed or failed).
 *   A replaced transaction (fee bump, re-signing) passes through `signed` again, so
 *   `operation.submitted` may come more than once, each time with the transaction then current.
 *   `data` is the operation row as it was then, without its sealed key material; the API turns
 *   it into the operation's view (as GET /operations/{id} shows it) when it is read or sent.
 * - API key events (`api_key.created`, `api_key.revoked`) come from a trigger on api_keys; `data`
 *   is the key's public fields. Other events (a webhook endpoint disabled...) are inserted by the
 *   application with their own `data`.
 * - Each insert notifies channel `account_events` with the account id (one notification per
 *   account and transaction, as Postgres folds equal payloads), for live readers (SSE, the
 *   webhook dispatcher); they re-read Postgres, which stays the truth.
 */
export class AccountEvents1765300000000 implements MigrationInterface {
  name = 'AccountEvents1765300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE account_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        type text NOT NULL,
        operation_id uuid,
        data jsonb NOT NULL CHECK (jsonb_typeof(data) = 'object'),
        created_at timestamptz NOT NULL,
        UNIQUE (account_id, seq)
      )`);
    await runner.query(
      `CREATE INDEX account_events_created ON account_events (account_id, created_at)`,
    );
    await runner.query(`
      CREATE FUNCTION account_events_number() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- One writer per account until its transaction ends: numbers follow commit order.
        -- 1702260340 is 'evnt' in ASCII, the class of these locks (audit_events uses 'audi').
        PERFORM pg_advisory_xact_lock(1702260340, hashtext(NEW.account_id::text));
        SELECT COALESCE(max(seq), 0) + 1 INTO NEW.seq FROM account_events
          WHERE account_id = NEW.account_id;
        NEW.created_at := clock_timestamp();
        PERFORM pg_notify('account_events', NEW.account_id::text);
        RETURN NEW;
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER account_events_number BEFORE INSERT ON account_events
        FOR EACH ROW EXECUTE FUNCTION account_events_number()`);

    await runner.query(`
      CREATE FUNCTION operation_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND (NEW.status IS NOT DISTINCT FROM OLD.status
            OR NEW.status NOT IN ('submitted', 'confirmed', 'failed')) THEN
          RETURN NULL;
        END IF;
        IF NEW.status = 'signed' THEN
          RETURN NULL;
        END IF;
        INSERT INTO account_events (account_id, type, operation_id, data)
          VALUES (NEW.account_id, 'operation.' || NEW.status, NEW.id,
                  to_jsonb(NEW) - 'ephemeral_secret' - 'ephemeral_key_id');
        RETURN NULL;
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER operations_status_event AFTER INSERT OR UPDATE OF status ON operations
        FOR EACH ROW EXECUTE FUNCTION operation_status_event()`);

    await runner.query(`
      CREATE FUNCTION api_key_event() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        event_type text;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          event_type := 'api_key.created';
        ELSIF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL THEN
          event_type := 'api_key.revoked';
        ELSE
          RETURN NULL;
        END IF;
        INSERT INTO account_events (account_id, type, data)
          VALUES (NEW.account_id, event_type, jsonb_build_object(
            'id', NEW.id, 'name', NEW.name, 'prefix', NEW.key_prefix,
            'created_at', NEW.created_at, 'revoked_at', NEW.revoked_at));
        RETURN NULL;
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER api_keys_event AFTER INSERT OR UPDATE OF revoked_at ON api_keys
        FOR EACH ROW EXECUTE FUNCTION api_key_event()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER api_keys_event ON api_keys`);
    await runner.query(`DROP FUNCTION api_key_event()`);
    await runner.query(`DROP TRIGGER operations_status_event ON operations`);
    await runner.query(`DROP FUNCTION operation_status_event()`);
    await runner.query(`DROP TABLE account_events`);
    await runner.query(`DROP FUNCTION account_events_number()`);
  }
}
