import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A signed transaction's wire bytes stored as bytes, not as their text (an EVM transaction's
 * `0x` hex is twice its size, a Solana transaction's base64 four thirds). Its text, as the
 * chains' libraries take it, is what the repositories read and write, through two functions
 * that know each family's encoding from the chain key (`evm:` or `solana:`).
 */
export class SignedTransactionsAsBytes1767300000000 implements MigrationInterface {
  name = 'SignedTransactionsAsBytes1767300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(WIRE_BYTES);
    await runner.query(WIRE_TEXT);
    await runner.query(
      `ALTER TABLE transactions ALTER COLUMN signed_tx TYPE bytea
         USING transaction_wire_bytes(chain_key, signed_tx)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE transactions ALTER COLUMN signed_tx TYPE text
         USING transaction_wire_text(chain_key, signed_tx)`,
    );
    await runner.query(`DROP FUNCTION transaction_wire_text(text, bytea)`);
    await runner.query(`DROP FUNCTION transaction_wire_bytes(text, text)`);
  }
}

/** A transaction's wire text (EVM `0x` hex, Solana base64) as its bytes. */
const WIRE_BYTES = `
  CREATE FUNCTION transaction_wire_bytes(chain_key text, wire text) RETURNS bytea
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN chain_key LIKE 'solana:%' THEN decode(wire, 'base64')
                ELSE decode(substr(wire, 3), 'hex') END
  $$`;

/** The inverse: base64 without the line breaks Postgres's encoder puts every 76 characters. */
const WIRE_TEXT = `
  CREATE FUNCTION transaction_wire_text(chain_key text, wire bytea) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN chain_key LIKE 'solana:%' THEN translate(encode(wire, 'base64'), E'\\n', '')
                ELSE '0x' || encode(wire, 'hex') END
  $$`;
