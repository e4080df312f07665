import type { MigrationInterface, QueryRunner } from 'typeorm';

const CARRIERS = `('token.mintBatch', 'nft.mintBatch')`;

/**
 * A carrier's signing writes each of its members once, not twice: the trigger on its new
 * transaction sets their transaction and status (the carrier's) together, and the status trigger
 * no longer mirrors `signed` (every statement that signs a carrier also records its transaction:
 * markSigned, markSignedMany, replaceSigned). Each member row written is a new version in every
 * index of `operations`; this was a third of a Solana airdrop's Postgres time a carrier.
 */
export class CarrierSigningOneWrite1766300000000 implements MigrationInterface {
  name = 'CarrierSigningOneWrite1766300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(transactionMembers('c.status'));
    await runner.query(statusMembersTrigger(`('queued', 'submitted')`));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(transactionMembers('m.status'));
    await runner.query(statusMembersTrigger(`('queued', 'signed', 'submitted')`));
  }
}

/** The trigger function on a carrier's new transaction; `status`: what its members take. */
export function transactionMembers(status: string): string {
  return `
    CREATE OR REPLACE FUNCTION carrier_transaction_members() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO operation_transactions (chain_key, tx_hash, item, operation_id)
        SELECT NEW.chain_key, NEW.tx_hash, row_number() OVER (ORDER BY batch_index), id
        FROM operations WHERE carrier_id = NEW.operation_id;
      IF FOUND THEN
        UPDATE operations m SET tx_hash = NEW.tx_hash, status = ${status}, updated_at = now()
          FROM operations c
          WHERE c.id = NEW.operation_id AND m.carrier_id = c.id
            AND m.status IN ('queued', 'signed', 'submitted')
            AND c.status IN ('queued', 'signed', 'submitted');
      END IF;
      RETURN NULL;
    END
    $$`;
}

/** The trigger making members take their carrier's in-flight `statuses`. */
export function statusMembersTrigger(statuses: string): string {
  return `
    DROP TRIGGER IF EXISTS carrier_status_members ON operations;
    CREATE TRIGGER carrier_status_members AFTER UPDATE OF status ON operations
      FOR EACH ROW WHEN (NEW.kind IN ${CARRIERS} AND NEW.status IN ${statuses}
        AND OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION carrier_status_members()`;
}
