import type { MigrationInterface, QueryRunner } from 'typeorm';
import { STATUS_INDEXES } from './1767200000000-operation-updates-in-place.migration';

/** The operation's partial indexes, keyed as before, their predicates free of `status`. */
const INDEXES = [
  `CREATE INDEX operations_unsettled_idx ON operations (updated_at) WHERE settled_at IS NULL`,
  `CREATE UNIQUE INDEX operations_wallet_nonce_idx ON operations (chain_key, signer, nonce)
     WHERE settled_at IS NULL AND nonce IS NOT NULL`,
  `CREATE INDEX operations_account_pending_idx ON operations (account_id, network)
     WHERE settled_at IS NULL`,
  `CREATE INDEX operations_batch_unsettled ON operations (batch_id)
     WHERE batch_index IS NOT NULL AND settled_at IS NULL`,
];

const NAMES = [
  'operations_unsettled_idx',
  'operations_wallet_nonce_idx',
  'operations_account_pending_idx',
  'operations_batch_unsettled',
];

/**
 * An operation's `signed -> submitted` write made a HOT update (no index touched): Postgres
 * updates a row in place of its indexes only when no indexed column changes, and a column in a
 * partial index's predicate counts. `status` was in four predicates; they now say the same with
 * `settled_at` (set exactly when the operation settles) and `nonce` (held only once signed),
 * which constraints make true of every row. The submission no longer moves `updated_at` either
 * (the reconciler's index key; `signed` and `submitted` show the same to clients). A
 * synchronous mint's submission wrote an entry in five indexes (`bench:mint-cost` with
 * BENCH_WAL_BY_RELATION=1); queries that use these indexes say `settled_at IS NULL` too.
 */
export class SubmittedInPlace1767400000000 implements MigrationInterface {
  name = 'SubmittedInPlace1767400000000';

  async up(runner: QueryRunner): Promise<void> {
    // Rows written before any path could break these (none is known to).
    await runner.query(
      `UPDATE operations SET settled_at = updated_at
       WHERE settled_at IS NULL AND status IN ('confirmed', 'failed')`,
    );
    await runner.query(
      `ALTER TABLE operations ADD CONSTRAINT operations_settled_once_final
         CHECK ((settled_at IS NULL) = (status IN ('queued', 'signed', 'submitted')))`,
    );
    await runner.query(
      `ALTER TABLE operations ADD CONSTRAINT operations_nonce_once_signed
         CHECK (status <> 'queued' OR nonce IS NULL)`,
    );
    await replaceIndexes(runner, INDEXES);
  }

  async down(runner: QueryRunner): Promise<void> {
    await replaceIndexes(runner, STATUS_INDEXES);
    await runner.query(`ALTER TABLE operations DROP CONSTRAINT operations_nonce_once_signed`);
    await runner.query(`ALTER TABLE operations DROP CONSTRAINT operations_settled_once_final`);
  }
}

async function replaceIndexes(runner: QueryRunner, definitions: string[]): Promise<void> {
  for (const name of NAMES) await runner.query(`DROP INDEX ${name}`);
  for (const definition of definitions) await runner.query(definition);
}
