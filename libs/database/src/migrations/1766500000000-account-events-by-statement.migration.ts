import type { MigrationInterface, QueryRunner } from 'typeorm';
import { operationStatusEvent } from './1766100000000-airdrops.migration';
import {
  WEBHOOK_DELIVERY_NOTIFY_BY_ROW,
  WEBHOOK_FAN_OUT_BY_ROW,
} from './1765400000000-webhooks.migration';

/**
 * Operation events are made once per statement, not once per row. A settlement of 130 airdrop
 * entries made 130 events through three row triggers each (the event, its number under the
 * account's lock with a notification, its webhook deliveries): 220-400 µs an entry, three
 * quarters of the settlement's time. Now each statement's changed rows are told in one insert:
 * - `append_account_events` takes each account's lock once (accounts in order, so two
 *   statements never wait on each other crosswise), reads its last number once, numbers the new
 *   events after it in the statement's row order, and notifies each account once. The lock is the
 *   one account_events_number takes for a single event (which still numbers events inserted one
 *   by one, without a number): numbers stay gap-free and in commit order.
 * - The rules of which changes are told are those of the row trigger (1766100000000), in
 *   `operation_change_told`.
 * - Webhook deliveries and their wake-ups are made per statement too.
 * Postgres allows transition tables only on triggers of one event without a column list: the
 * update trigger runs for every update of `operations` and tells only changes of status.
 */
export class AccountEventsByStatement1766500000000 implements MigrationInterface {
  name = 'AccountEventsByStatement1766500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER operations_status_event ON operations`);
    await runner.query(`DROP FUNCTION operation_status_event()`);
    await runner.query(APPEND_ACCOUNT_EVENTS);
    await runner.query(OPERATION_CHANGE_TOLD);
    await runner.query(OPERATION_STATUS_EVENTS);
    await runner.query(`
      CREATE TRIGGER operations_inserted_events AFTER INSERT ON operations
        REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION operation_status_events()`);
    await runner.query(`
      CREATE TRIGGER operations_updated_events AFTER UPDATE ON operations
        REFERENCING OLD TABLE AS before NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION operation_status_events()`);

    await runner.query(`DROP TRIGGER account_events_number ON account_events`);
    await runner.query(`
      CREATE TRIGGER account_events_number BEFORE INSERT ON account_events
        FOR EACH ROW WHEN (NEW.seq IS NULL) EXECUTE FUNCTION account_events_number()`);

    await runner.query(`DROP TRIGGER account_events_webhook_fan_out ON account_events`);
    await runner.query(WEBHOOK_FAN_OUT_BY_STATEMENT);
    await runner.query(`
      CREATE TRIGGER account_events_webhook_fan_out AFTER INSERT ON account_events
        REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION webhook_fan_out()`);
    await runner.query(`DROP TRIGGER webhook_deliveries_notify ON webhook_deliveries`);
    await runner.query(WEBHOOK_DELIVERY_NOTIFY_BY_STATEMENT);
    await runner.query(`
      CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
        REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_notify()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER webhook_deliveries_notify ON webhook_deliveries`);
    await runner.query(WEBHOOK_DELIVERY_NOTIFY_BY_ROW);
    await runner.query(`
      CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
        FOR EACH ROW EXECUTE FUNCTION webhook_delivery_notify()`);
    await runner.query(`DROP TRIGGER account_events_webhook_fan_out ON account_events`);
    await runner.query(WEBHOOK_FAN_OUT_BY_ROW);
    await runner.query(`
      CREATE TRIGGER account_events_webhook_fan_out AFTER INSERT ON account_events
        FOR EACH ROW EXECUTE FUNCTION webhook_fan_out()`);
    await runner.query(`DROP TRIGGER account_events_number ON account_events`);
    await runner.query(`
      CREATE TRIGGER account_events_number BEFORE INSERT ON account_events
        FOR EACH ROW EXECUTE FUNCTION account_events_number()`);

    await runner.query(`DROP TRIGGER operations_updated_events ON operations`);
    await runner.query(`DROP TRIGGER operations_inserted_events ON operations`);
    await runner.query(`DROP FUNCTION operation_status_events()`);
    await runner.query(`DROP FUNCTION operation_change_told(text, uuid, text, text)`);
    await runner.query(`DROP FUNCTION append_account_events(uuid[], text[], uuid[], jsonb[])`);
    await runner.query(operationStatusEvent(true));
    await runner.query(`
      CREATE TRIGGER operations_status_event AFTER INSERT OR UPDATE OF status ON operations
        FOR EACH ROW EXECUTE FUNCTION operation_status_event()`);
  }
}

/** Events of many rows at once, numbered after each account's last: see the class comment. */
const APPEND_ACCOUNT_EVENTS = `
  CREATE FUNCTION append_account_events(
    accounts uuid[], types text[], operation_ids uuid[], snapshots jsonb[]
  ) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    account uuid;
    each_account uuid[] := '{}';
    last_seq bigint[] := '{}';
  BEGIN
    -- 1702260340: the class of account_events_number's lock ('evnt').
    FOR account IN SELECT DISTINCT a FROM unnest(accounts) AS a ORDER BY a LOOP
      PERFORM pg_advisory_xact_lock(1702260340, hashtext(account::text));
      each_account := each_account || account;
      last_seq := last_seq
        || (SELECT COALESCE(max(seq), 0) FROM account_events WHERE account_id = account);
    END LOOP;
    INSERT INTO account_events (account_id, seq, type, operation_id, data, created_at)
      SELECT e.account_id,
             last.seq + row_number() OVER (PARTITION BY e.account_id ORDER BY e.ord),
             e.type, e.operation_id, e.data, clock_timestamp()
      FROM unnest(accounts, types, operation_ids, snapshots) WITH ORDINALITY
             AS e(account_id, type, operation_id, data, ord)
      JOIN unnest(each_account, last_seq) AS last(account_id, seq) USING (account_id)
      ORDER BY e.ord;
    PERFORM pg_notify('account_events', a::text) FROM unnest(each_account) AS a;
  END
  $$`;

/**
 * Whether an operation's change is told as an event (\`old_status\` null: it was inserted): every
 * status it takes but \`signed\` (queued only as it is made); a carrier's never, and an airdrop
 * entry's only as it settles.
 */
const OPERATION_CHANGE_TOLD = `
  CREATE FUNCTION operation_change_told(kind text, batch_id uuid, status text, old_status text)
  RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT status IS DISTINCT FROM old_status
      AND (status IN ('submitted', 'confirmed', 'failed') OR (old_status IS NULL AND status = 'queued'))
      AND kind NOT IN ('token.mintBatch', 'nft.mintBatch')
      AND (batch_id IS NULL OR status IN ('confirmed', 'failed'))
  $$`;

/**
 * The events of a statement's inserted or updated operations, in the statement's row order, each
 * with the operation as it now is (its sealed new-mint key material left out).
 */
export const OPERATION_STATUS_EVENTS = `
  CREATE FUNCTION operation_status_events() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    accounts uuid[];
    types text[];
    ids uuid[];
    snapshots jsonb[];
  BEGIN
    IF TG_OP = 'INSERT' THEN
      SELECT array_agg(n.account_id ORDER BY n.ord), array_agg('operation.' || n.status ORDER BY n.ord),
             array_agg(n.id ORDER BY n.ord),
             array_agg(to_jsonb(n) - 'ord' - 'new_mint_secret' - 'new_mint_key_id' ORDER BY n.ord)
        INTO accounts, types, ids, snapshots
        FROM (SELECT c.*, row_number() OVER () AS ord FROM changed c) AS n
        WHERE operation_change_told(n.kind, n.batch_id, n.status, NULL);
    ELSE
      SELECT array_agg(n.account_id ORDER BY n.ord), array_agg('operation.' || n.status ORDER BY n.ord),
             array_agg(n.id ORDER BY n.ord),
             array_agg(to_jsonb(n) - 'ord' - 'new_mint_secret' - 'new_mint_key_id' ORDER BY n.ord)
        INTO accounts, types, ids, snapshots
        FROM (SELECT c.*, row_number() OVER () AS ord FROM changed c) AS n
        JOIN before o ON o.id = n.id
        WHERE operation_change_told(n.kind, n.batch_id, n.status, o.status);
    END IF;
    IF accounts IS NOT NULL THEN
      PERFORM append_account_events(accounts, types, ids, snapshots);
    END IF;
    RETURN NULL;
  END
  $$`;

/**
 * Each new event's deliveries, one per enabled endpoint of its account taking its type. FOR KEY
 * SHARE: an endpoint being deleted meanwhile is waited for and then skipped, rather than failing
 * the foreign key check (and with it the change the event tells of); the pumps' updates (lease,
 * failures) take no lock that conflicts with it.
 */
const WEBHOOK_FAN_OUT_BY_STATEMENT = `
  CREATE OR REPLACE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO webhook_deliveries (endpoint_id, account_id, event_id, event_seq, event_type)
      SELECT w.id, e.account_id, e.id, e.seq, e.type
      FROM added e JOIN webhook_endpoints w ON w.account_id = e.account_id
      WHERE w.enabled AND (cardinality(w.event_types) = 0 OR e.type = ANY (w.event_types))
      ORDER BY e.seq, w.id
      FOR KEY SHARE OF w;
    RETURN NULL;
  END
  $$`;

/** Each endpoint with new deliveries is woken once a statement. */
const WEBHOOK_DELIVERY_NOTIFY_BY_STATEMENT = `
  CREATE OR REPLACE FUNCTION webhook_delivery_notify() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('webhook_deliveries', e::text)
      FROM (SELECT DISTINCT endpoint_id AS e FROM added) AS s;
    RETURN NULL;
  END
  $$`;
