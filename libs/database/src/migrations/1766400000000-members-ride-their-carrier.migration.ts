import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CARRIER_STATUS_MEMBERS } from './1766100000000-airdrops.migration';
import {
  statusMembersTrigger,
  transactionMembers,
} from './1766300000000-carrier-signing-one-write.migration';

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
    await runner.query(TRANSACTION_MEMBER_LINKS);
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
    await runner.query(CARRIER_STATUS_MEMBERS);
    await runner.query(statusMembersTrigger(`('queued', 'submitted')`));
    await runner.query(transactionMembers('c.status'));
  }
}

/** The trigger function on a carrier's new transaction: its members' links, no more. */
const TRANSACTION_MEMBER_LINKS = `
  CREATE OR REPLACE FUNCTION carrier_transaction_members() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO operation_transactions (chain_key, tx_hash, item, operation_id)
      SELECT NEW.chain_key, NEW.tx_hash, row_number() OVER (ORDER BY batch_index), id
      FROM operations WHERE carrier_id = NEW.operation_id;
    RETURN NULL;
  END
  $$`;
