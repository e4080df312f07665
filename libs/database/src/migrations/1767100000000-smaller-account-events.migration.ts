import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  WHAT_CHANGES,
  operationStatusEventsStoring,
} from './1767000000000-lean-operation-events.migration';

/**
 * Two cuts of what each account event writes (`bench:mint-cost` with BENCH_WAL_BY_RELATION=1
 * showed a synchronous mint's three events and their four indexes at about a fifth of its WAL):
 *
 * - An operation event stores the fields that change only where they hold a value: a queued
 *   event's nine keys were mostly nulls. A reader puts the absent ones back as null
 *   (`EVENT_DATA` in account-event.repository.ts), so every event renders as before; events
 *   stored with their nulls read the same. `result` is left whole (its own nulls are the
 *   operation's outcome); the other fields are scalars.
 * - The events' time index (account, time), which only a webhook replay "since" a time reads, is
 *   a BRIN index on the time: the table is appended to in time order (nothing deletes from it),
 *   so block ranges and times go together. A BRIN index writes nothing for a row landing in a
 *   range not yet summarized (the last one), and summarizes each range once it is full
 *   (autosummarize): one record every 8 pages (about 400 events) rather than an entry a row.
 */
export class SmallerAccountEvents1767100000000 implements MigrationInterface {
  name = 'SmallerAccountEvents1767100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(operationStatusEventsStoring(WHAT_HOLDS_A_VALUE));
    await runner.query(
      `CREATE INDEX account_events_created_at ON account_events USING brin (created_at)
         WITH (pages_per_range = 8, autosummarize = on)`,
    );
    await runner.query(`DROP INDEX account_events_created`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX account_events_created ON account_events (account_id, created_at)`,
    );
    await runner.query(`DROP INDEX account_events_created_at`);
    await runner.query(operationStatusEventsStoring(WHAT_CHANGES));
  }
}

/** WHAT_CHANGES without its null fields (`result` apart: a JSON value of its own). */
export const WHAT_HOLDS_A_VALUE = `jsonb_strip_nulls(jsonb_build_object('status', n.status,
               'tx_hash', n.tx_hash, 'new_mint_address', n.new_mint_address,
               'error_code', n.error_code, 'error_message', n.error_message,
               'attempts', n.attempts, 'last_error', n.last_error,
               'retrying_since', n.retrying_since))
             || CASE WHEN n.result IS NULL THEN '{}'::jsonb
                     ELSE jsonb_build_object('result', n.result) END`;
