import { Client } from 'pg';
import { createDataSource } from './data-source';

/** Creates the database named in the URL when it is missing (local and CI convenience). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    }
  } finally {
    await client.end();
  }
}

/** Creates the database if needed and applies every pending migration. Returns their names. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const dataSource = createDataSource(databaseUrl);
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
