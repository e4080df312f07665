import { Client } from 'pg';

/**
 * One query on a connection of its own, as test/support's queryDatabase, for the run's samples
 * while Postgres restarts. Its client listens for 'error': a fast shutdown sends every backend a
 * FATAL (57P01), which pg emits as an 'error' event when no query of the client is in flight
 * (after its result, while it ends), and an unheard 'error' event kills the chaos run itself.
 */
export async function sampleQuery<T extends Record<string, unknown>>(
  databaseUrl: string,
  sql: string,
): Promise<T[]> {
  const client = new Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: 2_000,
    query_timeout: 5_000,
  });
  client.on('error', () => undefined); // the query (or the next sample) sees the outage
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}
