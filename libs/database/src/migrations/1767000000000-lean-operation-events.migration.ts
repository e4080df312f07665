import type { MigrationInterface, QueryRunner } from 'typeorm';
import { OPERATION_STATUS_EVENTS } from './1766500000000-account-events-by-statement.migration';

/**
 * An operation event stores what can change over the operation's life, not the whole row: the
 * row's fixed fields (its kind, network, signer, intent, details, creation) are the same in each
 * of its events and in the row itself, so a reader takes them from the row
 * (`EVENT_DATA` in account-event.repository.ts). A synchronous mint's three events were 28% of
 * its write-ahead log (1,050-1,240 bytes each of 13.5 kB a mint, pg_waldump). Events stored
 * before keep their whole row, which reads as it did.
 */
export class LeanOperationEvents1767000000000 implements MigrationInterface {
  name = 'LeanOperationEvents1767000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(operationStatusEventsStoring(WHAT_CHANGES));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(replacing(OPERATION_STATUS_EVENTS));
  }
}

/**
 * `operation_status_events` (1766500000000) storing `snapshot` (an expression of the changed
 * row `n`) in each event in place of the whole row.
 */
export function operationStatusEventsStoring(snapshot: string): string {
  const wholeRows = OPERATION_STATUS_EVENTS.split(WHOLE_ROW);
  // Both branches (insert, update) snapshot the whole row; any other text is not the function
  // this migration follows.
  if (wholeRows.length !== 3) throw new Error('operation_status_events is not the expected one');
  return replacing(wholeRows.join(snapshot));
}

function replacing(definition: string): string {
  return definition.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');
}

/** The snapshot as 1766500000000 wrote it: the whole row but its sealed new-mint key. */
const WHOLE_ROW = `to_jsonb(n) - 'ord' - 'new_mint_secret' - 'new_mint_key_id'`;

/** The columns an operation's view reads that change after its insert, nulls included. */
export const WHAT_CHANGES = `jsonb_build_object('status', n.status, 'tx_hash', n.tx_hash,
               'result', n.result, 'new_mint_address', n.new_mint_address,
               'error_code', n.error_code, 'error_message', n.error_message,
               'attempts', n.attempts, 'last_error', n.last_error,
               'retrying_since', n.retrying_since)`;
