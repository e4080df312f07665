import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * A read-only statement straight on the DataSource's own pg pool: for the hottest single-row
 * reads (every GET), where TypeORM's query runner (acquire, log, release around each query) costs
 * more than the query. Same connections, same errors (see isDatabaseUnavailable). `name` makes it
 * a prepared statement on each connection, so Postgres parses and plans it once per connection
 * rather than once per request.
 */
export async function pooledQuery<T>(
  dataSource: DataSource,
  statement: { name: string; text: string },
  values: unknown[],
): Promise<T[]> {
  const pool = (dataSource.driver as PostgresDriver).master as Pool;
  return (await pool.query({ ...statement, values })).rows as T[];
}
