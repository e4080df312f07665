import type { DataSource } from 'typeorm';
import { CHAIN_KEYED_TABLES, type ChainKeyedTable } from './chain-keyed-tables';

export interface Rekeyed {
  /** The chain's identity, now its key (`evm:8453`). */
  identity: string;
  /** Rows moved to it, by table. */
  rows: Record<ChainKeyedTable, number>;
}

/**
 * Moves every public chain pinned under a key made of an RPC URL (as a deployment that stored rows
 * before keys were pinned keeps it, ChainKeyRepository.pin) to its identity, so that the URL, and
 * a provider's API key in it, is in no row any more. One statement a chain, all in one
 * transaction: every foreign key that names a chain key (a link to its transaction, an
 * operation's to its link) is checked at the statement's end, when both sides moved. Run it with
 * every API and worker process stopped: a running one holds the old key and would go on writing
 * under it. Refuses while another session is connected to the database: give it a data source
 * of one connection.
 */
export function rekeyChainsToIdentities(dataSource: DataSource): Promise<Rekeyed[]> {
  return dataSource.transaction(async (manager) => {
    const [{ others }] = await manager.query<{ others: number }[]>(
      `SELECT count(*)::int AS others FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND backend_type = 'client backend'`,
    );
    if (others > 0) {
      throw new Error(
        `${others} other session(s) connected to this database: stop every API and worker process first`,
      );
    }
    const pinned = await manager.query<{ identity: string; chain_key: string }[]>(
      `SELECT identity, chain_key FROM chain_keys WHERE chain_key <> identity
       ORDER BY identity FOR UPDATE`,
    );
    const rekeyed: Rekeyed[] = [];
    for (const { identity, chain_key: urlKey } of pinned) {
      const [rows] = await manager.query<Rekeyed['rows'][]>(
        `WITH ${CHAIN_KEYED_TABLES.map(
          (table) =>
            `${table}_moved AS (UPDATE ${table} SET chain_key = $1 WHERE chain_key = $2 RETURNING 1)`,
        ).join(',\n')},
         pinned AS (UPDATE chain_keys SET chain_key = $1 WHERE identity = $1)
         SELECT ${CHAIN_KEYED_TABLES.map((table) => `(SELECT count(*)::int FROM ${table}_moved) AS ${table}`).join(', ')}`,
        [identity, urlKey],
      );
      rekeyed.push({ identity, rows });
    }
    return rekeyed;
  });
}
