import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * A read-only statement straight on the DataSource's own pg pool: for the hottest single-row
 * reads (every GET), where TypeORM's query runner (acquire, log, release around each query) costs
 * more than the query. Same connections, same errors (see isDatabaseUnavailable).
 */
export async function pooledQuery<T>(
  dataSource: DataSource,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const pool = (dataSource.driver as PostgresDriver).master as Pool;
  return (await pool.query(sql, params)).rows as T[];
}
