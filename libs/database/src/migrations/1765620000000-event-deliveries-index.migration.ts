import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An event's webhook deliveries (an operation's detail shows them), found by the event. */
export class EventDeliveriesIndex1765620000000 implements MigrationInterface {
  name = 'EventDeliveriesIndex1765620000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)
         WHERE event_id IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX webhook_deliveries_event`);
  }
}
