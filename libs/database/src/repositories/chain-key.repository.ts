import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CHAIN_KEYED_TABLES } from '../chain-keys/chain-keyed-tables';

/**
 * Whether anything of a chain is stored under this key: what a deployment from before keys were
 * pinned (migration 1767700000000) stored under the key made of its first RPC URL. Read at the
 * chain's first pin only, the first table holding a row answering.
 */
const STORED_UNDER_URL_KEY = CHAIN_KEYED_TABLES.map(
  (table) => `EXISTS (SELECT 1 FROM ${table} WHERE chain_key = k.url_key)`,
).join(' OR ');

/** The chain keys pinned for public chains (migration 1767700000000), by chain identity. */
@Injectable()
export class ChainKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Pins a key for each identity that has none yet, and returns the key pinned for every one of
   * them. The key pinned is the identity itself (`evm:8453`): an RPC URL often holds a provider's
   * API key, which would otherwise be copied into every row, backup and replica. Only where rows
   * were stored under the key made of the chain's URL (`urlKeys`, as keys were made before they
   * were pinned) is that key pinned, so they stay the chain's. Two statements, not one: the second
   * reads what a concurrent start pinned first (its insert waited for that commit and did nothing).
   */
  async pin(urlKeys: ReadonlyMap<string, string>): Promise<Map<string, string>> {
    if (urlKeys.size === 0) return new Map();
    const identities = [...urlKeys.keys()];
    await this.dataSource.query(
      `INSERT INTO chain_keys (identity, chain_key)
       SELECT k.identity, CASE WHEN ${STORED_UNDER_URL_KEY} THEN k.url_key ELSE k.identity END
       FROM unnest($1::text[], $2::text[]) AS k(identity, url_key)
       WHERE NOT EXISTS (SELECT 1 FROM chain_keys c WHERE c.identity = k.identity)
       ON CONFLICT (identity) DO NOTHING`,
      [identities, [...urlKeys.values()]],
    );
    const rows = await this.dataSource.query<{ identity: string; chain_key: string }[]>(
      `SELECT identity, chain_key FROM chain_keys WHERE identity = ANY($1)`,
      [identities],
    );
    return new Map(rows.map((row) => [row.identity, row.chain_key]));
  }
}
