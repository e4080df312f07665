import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The transfers and burns of an item (the console's item history), found by what they name. */
export class ItemOperationsIndex1765610000000 implements MigrationInterface {
  name = 'ItemOperationsIndex1765610000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX operations_item_changes ON operations
         ((intent->>'collection'), (intent->>'tokenId'))
         WHERE kind IN ('nft.transfer', 'nft.burn')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX operations_item_changes`);
  }
}
