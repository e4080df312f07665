import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The chain keys pinned for public chains (migration 1767700000000), by chain identity. */
@Injectable()
export class ChainKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Pins each identity's key where none is pinned yet, and returns the key pinned for every one
   * of them: the one given here, or an earlier start's. Two statements, not one: the second
   * reads what a concurrent start pinned first (its insert waited for that commit and did nothing).
   */
  async pin(keys: ReadonlyMap<string, string>): Promise<Map<string, string>> {
    if (keys.size === 0) return new Map();
    const identities = [...keys.keys()];
    await this.dataSource.query(
      `INSERT INTO chain_keys (identity, chain_key)
       SELECT * FROM unnest($1::text[], $2::text[])
       ON CONFLICT (identity) DO NOTHING`,
      [identities, [...keys.values()]],
    );
    const rows = await this.dataSource.query<{ identity: string; chain_key: string }[]>(
      `SELECT identity, chain_key FROM chain_keys WHERE identity = ANY($1)`,
      [identities],
    );
    return new Map(rows.map((row) => [row.identity, row.chain_key]));
  }
}
