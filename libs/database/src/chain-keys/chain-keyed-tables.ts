/**
 * The tables whose rows name their chain by its key: what a chain's key finds, what the first pin
 * looks for under a URL key, and what the rekeying moves. A new table with a chain key belongs
 * here (chain-key-rekey.test.ts reads the schema's list and fails until it is).
 */
export const CHAIN_KEYED_TABLES = [
  'transactions',
  'operation_transactions',
  'operations',
  'assets',
  'nonce_ledger',
  'batches',
] as const;

export type ChainKeyedTable = (typeof CHAIN_KEYED_TABLES)[number];
