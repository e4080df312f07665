import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Four indexes that each row paid an entry in without a reader needing them
 * (`bench:mint-cost` with BENCH_WAL_BY_RELATION=1: a synchronous NFT mint writes three account
 * events, an audit row, an item and a transaction link, each entry about 70-100 bytes of WAL):
 *
 * - `account_events` is keyed by `(account_id, seq)`, which every reader uses, not by its `id`:
 *   nothing looks an event up by id but the webhook deliveries' foreign key, which now names the
 *   event by `(account_id, event_seq)` as the deliveries already store it. Ids stay as they
 *   were, random UUIDs from the database.
 * - `audit_events` likewise: read by account and sequence only; `id` stays, from its identity.
 * - `nft_items_mint_idx` holds Solana items only: an EVM item's `mint_address` is its
 *   collection's `0x` address, shared by every item, and a mint is looked up alone only on
 *   Solana (`findItemByMint`), whose base58 addresses have no `0`. (Not `token_id =
 *   mint_address`, true of Solana items only too: the planner folds that equality into the
 *   looked-up value and can then no longer prove the index's predicate.)
 * - `operation_transactions`' lookup by operation is its unique `(operation_id, chain_key,
 *   tx_hash)`, which the foreign key `operations_tx_is_own` also takes (its columns in another
 *   order), in place of that unique key led by the transaction and a second index on the
 *   operation.
 */
export class FewerIndexEntries1767500000000 implements MigrationInterface {
  name = 'FewerIndexEntries1767500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey`,
    );
    await runner.query(`ALTER TABLE account_events DROP CONSTRAINT account_events_pkey`);
    await runner.query(`ALTER TABLE account_events
      DROP CONSTRAINT account_events_account_id_seq_key,
      ADD CONSTRAINT account_events_pkey PRIMARY KEY (account_id, seq)`);
    await runner.query(`ALTER TABLE webhook_deliveries
      ADD CONSTRAINT webhook_deliveries_event_seq CHECK (event_id IS NULL OR event_seq IS NOT NULL),
      ADD CONSTRAINT webhook_deliveries_event FOREIGN KEY (account_id, event_seq)
        REFERENCES account_events (account_id, seq) ON DELETE CASCADE`);

    await runner.query(`ALTER TABLE audit_events
      DROP CONSTRAINT audit_events_pkey,
      DROP CONSTRAINT audit_events_account_id_seq_key,
      ADD CONSTRAINT audit_events_pkey PRIMARY KEY (account_id, seq)`);

    await runner.query(`DROP INDEX nft_items_mint_idx`);
    await runner.query(
      `CREATE INDEX nft_items_mint_idx ON nft_items (mint_address) WHERE mint_address NOT LIKE '0x%'`,
    );

    await runner.query(`ALTER TABLE operations DROP CONSTRAINT operations_tx_is_own`);
    await runner.query(`ALTER TABLE operation_transactions
      DROP CONSTRAINT operation_transactions_chain_key_tx_hash_operation_id_key,
      ADD CONSTRAINT operation_transactions_operation_key UNIQUE (operation_id, chain_key, tx_hash)`);
    await runner.query(`DROP INDEX operation_transactions_operation`);
    await runner.query(OPERATION_TX_IS_OWN);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE operations DROP CONSTRAINT operations_tx_is_own`);
    await runner.query(
      `CREATE INDEX operation_transactions_operation ON operation_transactions (operation_id)`,
    );
    await runner.query(`ALTER TABLE operation_transactions
      DROP CONSTRAINT operation_transactions_operation_key,
      ADD UNIQUE (chain_key, tx_hash, operation_id)`);
    await runner.query(OPERATION_TX_IS_OWN);

    await runner.query(`DROP INDEX nft_items_mint_idx`);
    await runner.query(`CREATE INDEX nft_items_mint_idx ON nft_items (mint_address)`);

    await runner.query(`ALTER TABLE audit_events
      DROP CONSTRAINT audit_events_pkey,
      ADD PRIMARY KEY (id),
      ADD UNIQUE (account_id, seq)`);

    await runner.query(`ALTER TABLE webhook_deliveries
      DROP CONSTRAINT webhook_deliveries_event,
      DROP CONSTRAINT webhook_deliveries_event_seq`);
    await runner.query(`ALTER TABLE account_events
      DROP CONSTRAINT account_events_pkey,
      ADD PRIMARY KEY (id),
      ADD UNIQUE (account_id, seq)`);
    await runner.query(`ALTER TABLE webhook_deliveries
      ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id)
        REFERENCES account_events (id) ON DELETE CASCADE`);
  }
}

/** An operation's transaction is one of its own (NOT VALID, as migration 1765000000000 made it). */
const OPERATION_TX_IS_OWN = `ALTER TABLE operations ADD CONSTRAINT operations_tx_is_own
  FOREIGN KEY (chain_key, tx_hash, id)
  REFERENCES operation_transactions (chain_key, tx_hash, operation_id) NOT VALID`;
