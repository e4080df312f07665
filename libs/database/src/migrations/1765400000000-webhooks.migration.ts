import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks: an account's endpoints, one delivery row per (endpoint, event) and every attempt.
 *
 * - Fan-out is done by the database: an insert into account_events makes a pending delivery for
 *   each enabled endpoint of the account whose `event_types` take it (empty: every type), in the
 *   same transaction as the event, so no event commits without its deliveries.
 * - Every new delivery (fan-out, ping, replay) notifies channel `webhook_deliveries` with its
 *   endpoint id (Postgres folds equal payloads per transaction). Workers pump the endpoint;
 *   Postgres stays the truth (a periodic sweep finds due deliveries whose news was lost).
 * - `lease_owner`/`lease_until`: one pump per endpoint at a time across workers; a lease that a
 *   killed worker left behind lapses at `lease_until`.
 * - Secrets are sealed (AES-256-GCM, associated data = the endpoint id); during a rotation's
 *   grace the previous one is kept (sealed) until `previous_secret_expires_at`.
 */
export class Webhooks1765400000000 implements MigrationInterface {
  name = 'Webhooks1765400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        url text NOT NULL,
        description text NOT NULL DEFAULT '',
        event_types text[] NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text,
        secret_ciphertext bytea NOT NULL,
        secret_key_id text NOT NULL,
        previous_secret_ciphertext bytea,
        previous_secret_key_id text,
        previous_secret_expires_at timestamptz,
        failing_since timestamptz,
        paused_until timestamptz,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at)`,
    );

    await runner.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        event_id uuid REFERENCES account_events (id) ON DELETE CASCADE,
        event_seq bigint,
        event_type text NOT NULL,
        -- A ping has no account event: its body is kept here.
        body jsonb,
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        first_attempt_at timestamptz,
        last_attempt_at timestamptz,
        last_response_status integer,
        last_latency_ms integer,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK (event_id IS NOT NULL OR body IS NOT NULL)
      )`);
    // The pump's query: an endpoint's due deliveries, in sequence order.
    await runner.query(`
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at)
        WHERE status = 'pending'`);
    // The delivery log, newest first.
    await runner.query(`
      CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, created_at DESC, id)`);

    await runner.query(`
      CREATE TABLE webhook_attempts (
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        attempted_at timestamptz NOT NULL,
        response_status integer,
        latency_ms integer NOT NULL,
        error text,
        PRIMARY KEY (delivery_id, attempt)
      )`);

    await runner.query(WEBHOOK_FAN_OUT_BY_ROW);
    await runner.query(`
      CREATE TRIGGER account_events_webhook_fan_out AFTER INSERT ON account_events
        FOR EACH ROW EXECUTE FUNCTION webhook_fan_out()`);

    await runner.query(WEBHOOK_DELIVERY_NOTIFY_BY_ROW);
    await runner.query(`
      CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
        FOR EACH ROW EXECUTE FUNCTION webhook_delivery_notify()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER account_events_webhook_fan_out ON account_events`);
    await runner.query(`DROP FUNCTION webhook_fan_out()`);
    await runner.query(`DROP TABLE webhook_attempts`);
    await runner.query(`DROP TABLE webhook_deliveries`);
    await runner.query(`DROP FUNCTION webhook_delivery_notify()`);
    await runner.query(`DROP TABLE webhook_endpoints`);
  }
}

/** An event's deliveries, one per endpoint taking it, made as the event is (until 1766500000000). */
export const WEBHOOK_FAN_OUT_BY_ROW = `
      CREATE OR REPLACE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- FOR KEY SHARE: an endpoint being deleted meanwhile is waited for and then skipped,
        -- rather than failing the foreign key check (and with it the change the event tells of).
        -- The pumps' updates (lease, failures) take no lock that conflicts with it.
        INSERT INTO webhook_deliveries (endpoint_id, account_id, event_id, event_seq, event_type)
          SELECT w.id, NEW.account_id, NEW.id, NEW.seq, NEW.type FROM webhook_endpoints w
          WHERE w.account_id = NEW.account_id AND w.enabled
            AND (cardinality(w.event_types) = 0 OR NEW.type = ANY (w.event_types))
          FOR KEY SHARE OF w;
        RETURN NULL;
      END
      $$`;

/** A new delivery's wake-up of its endpoint's pump (until 1766500000000). */
export const WEBHOOK_DELIVERY_NOTIFY_BY_ROW = `
      CREATE OR REPLACE FUNCTION webhook_delivery_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('webhook_deliveries', NEW.endpoint_id::text);
        RETURN NULL;
      END
      $$`;
