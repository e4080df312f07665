import type { Client } from 'pg';

/** WAL written for one relation (or a record of none: commits, multixacts) by one record type. */
export interface WalShare {
  relation: string;
  record: string;
  records: number;
  bytes: number;
}

/**
 * Where the cluster's WAL since `fromLsn` went, by relation and record type, largest first (the
 * relations named from this database's catalog; others' by their file node). From
 * pg_walinspect, created in this run's database (a superuser's bench on its own throwaway
 * database). Reads every record since `fromLsn`: for a bench window, not a live system.
 */
export async function walByRelation(
  db: Client,
  fromLsn: bigint,
  top = Number(process.env.BENCH_WAL_TOP ?? 20),
): Promise<WalShare[]> {
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  const { rows } = await db.query<{
    relation: string;
    record: string;
    records: string;
    bytes: string;
  }>(
    `WITH record AS (
       SELECT resource_manager || ' ' || record_type AS record, record_length + fpi_length AS bytes,
              substring(block_ref FROM 'rel \\d+/\\d+/(\\d+)')::oid AS node
         FROM pg_get_wal_records_info($1::pg_lsn, pg_current_wal_lsn()))
     SELECT coalesce(c.relname, r.node::text, '-') AS relation, r.record,
            count(*)::text AS records, sum(r.bytes)::text AS bytes
       FROM record r LEFT JOIN pg_class c ON c.relfilenode = r.node
      GROUP BY 1, 2 ORDER BY sum(r.bytes) DESC LIMIT $2`,
    [lsnText(fromLsn), top],
  );
  return rows.map((row) => ({
    relation: row.relation,
    record: row.record,
    records: Number(row.records),
    bytes: Number(row.bytes),
  }));
}

/** A WAL position as Postgres writes it (`16/B374D848`), from its byte offset. */
export function lsnText(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
