import type { MigrationInterface, QueryRunner } from 'typeorm';
import { operationStatusEventsStoring } from './1767000000000-lean-operation-events.migration';
import { WHAT_HOLDS_A_VALUE } from './1767100000000-smaller-account-events.migration';

/**
 * An operation event stores only what its operation's row cannot tell later (`bench:mint-cost`
 * with BENCH_WAL_BY_RELATION=1: a synchronous mint's three events were its largest share of
 * WAL, about 270 bytes each):
 *
 * - its status is its type (`operation.submitted`), and zero attempts the default;
 * - a settled event (`operation.confirmed`, `operation.failed`) stores nothing: a settled row is
 *   final (every write of an operation requires it unsettled; `operations_settled_once_final`),
 *   so its result, landed transaction and error are the row's own, for as long as it exists.
 *
 * A reader puts them back (`EVENT_DATA` in account-event.repository.ts), so every event renders
 * as before; events stored earlier carry these fields themselves, which take precedence.
 */
export class SettledEventsFromTheirRow1767800000000 implements MigrationInterface {
  name = 'SettledEventsFromTheirRow1767800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(operationStatusEventsStoring(WHAT_ONLY_THE_EVENT_KNOWS));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(operationStatusEventsStoring(WHAT_HOLDS_A_VALUE));
  }
}

/** WHAT_HOLDS_A_VALUE but the status and zero attempts; nothing once the operation settles. */
export const WHAT_ONLY_THE_EVENT_KNOWS = `CASE WHEN n.settled_at IS NOT NULL THEN '{}'::jsonb
             ELSE jsonb_strip_nulls(jsonb_build_object('tx_hash', n.tx_hash,
               'new_mint_address', n.new_mint_address,
               'error_code', n.error_code, 'error_message', n.error_message,
               'attempts', NULLIF(n.attempts, 0), 'last_error', n.last_error,
               'retrying_since', n.retrying_since))
             || CASE WHEN n.result IS NULL THEN '{}'::jsonb
                     ELSE jsonb_build_object('result', n.result) END END`;
