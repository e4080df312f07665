import type { MigrationInterface, QueryRunner } from 'typeorm';
import { operationStatusEventsStoring } from './1767000000000-lean-operation-events.migration';
import { WHAT_ONLY_THE_EVENT_KNOWS } from './1767800000000-settled-events-from-their-row.migration';

/**
 * An operation event no longer stores the new mint's address: a Solana operation's address is
 * set by its first signing and never changed after (every signing uses the seed kept with the
 * operation), and only a `submitted` event among the unsettled ones comes after a signing (a
 * `queued` event is an insert's, when there is none yet). The reader takes it from the row
 * (`EVENT_DATA`); events stored earlier keep their own. 65 bytes of WAL a Solana mint.
 */
export class NewMintAddressFromTheRow1768200000000 implements MigrationInterface {
  name = 'NewMintAddressFromTheRow1768200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(operationStatusEventsStoring(WHAT_THE_EVENT_ALONE_KNOWS));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(operationStatusEventsStoring(WHAT_ONLY_THE_EVENT_KNOWS));
  }
}

const MINT_ADDRESS = `'new_mint_address', n.new_mint_address,`;

function withoutMintAddress(snapshot: string): string {
  if (!snapshot.includes(MINT_ADDRESS)) throw new Error('the snapshot is not the expected one');
  return snapshot.replace(MINT_ADDRESS, '');
}

const WHAT_THE_EVENT_ALONE_KNOWS = withoutMintAddress(WHAT_ONLY_THE_EVENT_KNOWS);
