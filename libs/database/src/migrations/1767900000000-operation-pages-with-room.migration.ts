import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each new page of `operations` keeps 60% free (fillfactor 40, was 70) for the new versions of
 * its rows. An operation is updated twice or three times within seconds of its insert (signed,
 * submitted, settled); Postgres logs an update by the bytes it changes only when the new version
 * fits on the old one's page, else the whole row. At 70 most updates of a busy account's rows
 * found their page full: `bench:mint-cost` (EVM, BENCH_WAL_BY_RELATION=1) logged 630 bytes of
 * updates a mint at 70, 456 at 50, 383 at 40 and 382 at 30 (WAL a mint 7,209, 6,966, 6,830 and
 * 6,830). The table takes about twice the pages it would packed full; its hot part is the rows
 * of the last minutes. Pages written before keep the old setting.
 */
export class OperationPagesWithRoom1767900000000 implements MigrationInterface {
  name = 'OperationPagesWithRoom1767900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE operations SET (fillfactor = 40)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE operations SET (fillfactor = 70)`);
  }
}
