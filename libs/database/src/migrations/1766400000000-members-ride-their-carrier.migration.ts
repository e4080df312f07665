import type { MigrationInterface, QueryRunner } from 'typeorm';

const CARRIERS = `('token.mintBatch', 'nft.mintBatch')`;

/**
 * An airdrop's entries ride their carrier: from the carrier's signing to its settlement an entry's
 * row stays `queued` with no transaction of its own, and reads show the carrier's status and
 * transaction (repositories/carrier-state.ts). Copying them into every entry was two writes an
 * entry (signed, submitted), each a new version of the row in every index of `operations`: half
 * of a Solana token airdrop's WAL. The entries' links to each transaction the carrier signs
 * (operation_transactions, their place in it) are still written.
 */
export class MembersRideTheirCarrier1766400000000 implements MigrationInterface {
  name = 'MembersRideTheirCarrier1766400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(transactionMembers(''));
    await runner.query(`DROP TRIGGER carrier_status_members ON operations`);
    await runner.query(`DROP FUNCTION carrier_status_members()`);
    await runner.query(`
      UPDATE operations SET status = 'queued', tx_hash = NULL
      WHERE carrier_id IS NOT NULL AND status IN ('signed', 'submitted')`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      UPDATE operations m SET status = c.status, tx_hash = c.tx_hash
      FROM operations c
      WHERE m.carrier_id = c.id AND m.status = 'queued' AND c.status IN ('signed', 'submitted')`);
    await runner.query(`
      CREATE FUNCTION carrier_status_members() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE operations SET status = NEW.status, updated_at = now(),
            tx_hash = CASE WHEN NEW.status = 'queued' THEN NULL ELSE tx_hash END
          WHERE carrier_id = NEW.id AND status IN ('queued', 'signed', 'submitted')
            AND status <> NEW.status;
        RETURN NULL;
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER carrier_status_members AFTER UPDATE OF status ON operations
        FOR EACH ROW WHEN (NEW.kind IN ${CARRIERS} AND NEW.status IN ('queued', 'submitted')
          AND OLD.status IS DISTINCT FROM NEW.status)
        EXECUTE FUNCTION carrier_status_members()`);
    await runner.query(
      transactionMembers(`
      IF FOUND THEN
        UPDATE operations m SET tx_hash = NEW.tx_hash, status = c.status, updated_at = now()
          FROM operations c
          WHERE c.id = NEW.operation_id AND m.carrier_id = c.id
            AND m.status IN ('queued', 'signed', 'submitted')
            AND c.status IN ('queued', 'signed', 'submitted');
      END IF;`),
    );
  }
}

/** The trigger function on a carrier's new transaction: its members' links, then `more`. */
function transactionMembers(more: string): string {
  return `
    CREATE OR REPLACE FUNCTION carrier_transaction_members() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO operation_transactions (chain_key, tx_hash, item, operation_id)
        SELECT NEW.chain_key, NEW.tx_hash, row_number() OVER (ORDER BY batch_index), id
        FROM operations WHERE carrier_id = NEW.operation_id;
      ${more}
      RETURN NULL;
    END
    $$`;
}
