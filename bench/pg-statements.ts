import type { Client } from 'pg';

/** A statement of pg_stat_statements: its text (whitespace folded, cut short) and its calls. */
export interface StatementCalls {
  query: string;
  calls: number;
}

/**
 * pg_stat_statements in this run's database: created there (a superuser's bench on its own
 * throwaway database) when the cluster preloads it. False when it is not loaded.
 */
async function statementsReady(db: Client): Promise<boolean> {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await db.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
    return true;
  } catch {
    return false;
  }
}

/** Statements run in the database so far; null when pg_stat_statements is not loaded. */
export async function statementCount(db: Client, database: string): Promise<number | null> {
  if (!(await statementsReady(db))) return null;
  const { rows } = await db.query<{ calls: string | null }>(
    `SELECT sum(calls)::text AS calls FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)`,
    [database],
  );
  return Number(rows[0].calls ?? 0);
}

/** Forgets the statements counted so far (false when pg_stat_statements is not loaded). */
export async function resetStatements(db: Client): Promise<boolean> {
  if (!(await statementsReady(db))) return false;
  await db.query('SELECT pg_stat_statements_reset()');
  return true;
}

/** The database's `limit` most called statements since the last reset. */
export async function mostCalledStatements(
  db: Client,
  database: string,
  limit: number,
): Promise<StatementCalls[]> {
  const { rows } = await db.query<{ query: string; calls: string }>(
    `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query, calls::text AS calls
     FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
     ORDER BY pg_stat_statements.calls DESC LIMIT $2`,
    [database, limit],
  );
  return rows.map((row) => ({ query: row.query, calls: Number(row.calls) }));
}
