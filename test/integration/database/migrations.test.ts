import { Client } from 'pg';
import { migrate } from '@app/database';
import { startTestServices, type TestServices } from '@test/support/test-services';

describe('migrations', () => {
  let services: TestServices;

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await services.stop();
  });

  it('create the schema once and are a no-op the second time', async () => {
    expect(await migrate(services.databaseUrl)).toEqual([]);
    const client = new Client({ connectionString: services.databaseUrl });
    await client.connect();
    try {
      const tables = await client.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
      );
      expect(tables.rows.map((row) => row.tablename)).toEqual(
        expect.arrayContaining([
          'accounts',
          'api_keys',
          'created_wallets',
          'managed_wallets',
          'sessions',
        ]),
      );
      const secretColumns = await client.query(
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_schema = 'public' AND column_name ILIKE '%secret%'`,
      );
      // Every column that holds a secret is a ciphertext (or the id of the key that sealed it).
      const columns = secretColumns.rows.map((row) => `${row.table_name}.${row.column_name}`);
      expect(columns.sort()).toEqual([
        'managed_wallets.secret_ciphertext',
        'managed_wallets.secret_key_id',
        'operations.new_mint_secret',
        'webhook_endpoints.previous_secret_ciphertext',
        'webhook_endpoints.previous_secret_expires_at',
        'webhook_endpoints.previous_secret_key_id',
        'webhook_endpoints.secret_ciphertext',
        'webhook_endpoints.secret_key_id',
      ]);
    } finally {
      await client.end();
    }
  });
});
