import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The partial indexes on `status`, as the migrations before this one made them. */
export const STATUS_INDEXES = [
  `CREATE INDEX operations_unsettled_idx ON operations (updated_at)
     WHERE status IN ('queued', 'signed', 'submitted')`,
  `CREATE UNIQUE INDEX operations_wallet_nonce_idx ON operations (chain_key, signer, nonce)
     WHERE status IN ('signed', 'submitted')`,
  `CREATE INDEX operations_account_pending_idx ON operations (account_id, network)
     WHERE status IN ('queued', 'signed', 'submitted')`,
  `CREATE INDEX operations_batch_unsettled ON operations (batch_id)
     WHERE batch_index IS NOT NULL AND status IN ('queued', 'signed', 'submitted')`,
];

/** What reads `status` (each dropped with the column, and made again on the new one). */
const ON_STATUS = [
  `ALTER TABLE operations ADD CONSTRAINT operations_status_check
     CHECK (status IN ('queued', 'signed', 'submitted', 'confirmed', 'failed'))`,
  ...STATUS_INDEXES,
];

/**
 * An operation's updates (signed, submitted, settled, each retry) logged in WAL by what they
 * change, not the whole row. Postgres logs an updated row by the bytes between the first and the
 * last that differ when the new version lands on the old one's page; otherwise whole.
 * `bench:mint-cost` (BENCH_WAL_BY_RELATION=1) showed a synchronous mint's three updates at about
 * 1,800 bytes, a sixth of its WAL: each new version landed on another page (pages were full),
 * and `status`, which every update changes, came before the request (`intent`, `details`), so
 * even a version on the same page would have been logged nearly whole (measured on a scratch
 * table of such rows: 558 bytes an update with `status` before the request, 181 after it).
 *
 * So `status` moves to the row's end (added anew, copied, the old one dropped; Postgres cannot
 * reorder columns in place), and each page keeps 30% free for new versions (fillfactor 70).
 * The copy rewrites every row once, in the migration's transaction, with the update trigger off
 * (no status changes); on a large table, run it in a quiet hour.
 */
export class OperationUpdatesInPlace1767200000000 implements MigrationInterface {
  name = 'OperationUpdatesInPlace1767200000000';

  async up(runner: QueryRunner): Promise<void> {
    await moveStatusToTheEnd(runner);
    await runner.query(`ALTER TABLE operations SET (fillfactor = 70)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE operations RESET (fillfactor)`);
  }
}

async function moveStatusToTheEnd(runner: QueryRunner): Promise<void> {
  await runner.query(`ALTER TABLE operations ADD COLUMN status_moved text`);
  await runner.query(`ALTER TABLE operations DISABLE TRIGGER operations_updated_events`);
  await runner.query(`UPDATE operations SET status_moved = status`);
  await runner.query(`ALTER TABLE operations ENABLE TRIGGER operations_updated_events`);
  // The constraint and the four partial indexes on it go with it.
  await runner.query(`ALTER TABLE operations DROP COLUMN status`);
  await runner.query(`ALTER TABLE operations RENAME COLUMN status_moved TO status`);
  await runner.query(`ALTER TABLE operations ALTER COLUMN status SET NOT NULL`);
  for (const statement of ON_STATUS) await runner.query(statement);
}
