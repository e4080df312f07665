import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The chain key of each public chain, pinned on the first start that meets it (ChainKeyPinning):
 * its stored rows (assets, operations, transactions, the nonce ledger) stay its own when the
 * network's RPC URL, of which the key is made, is changed later, say to another provider.
 * `identity` names the chain whatever its endpoint: `evm:<chain id>` or `solana:<profile>`.
 */
export class ChainKeysPinned1767700000000 implements MigrationInterface {
  name = 'ChainKeysPinned1767700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE chain_keys (
        identity text PRIMARY KEY,
        chain_key text NOT NULL,
        pinned_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE chain_keys`);
  }
}
