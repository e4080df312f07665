import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { AssetIntent } from '@app/common';
import { createDataSource, OperationRepository, QueryPriority } from '@app/database';
import { newOperationEntity } from '@test/support/operation-factory';
import { scopeOf } from '@test/support/work-scope';
import { startTestServices, type TestServices } from '@test/support/test-services';

const MINT = {
  kind: 'nft.mint',
  name: 'Read',
  collection: '0x00000000000000000000000000000000000000c1',
  recipient: '0x00000000000000000000000000000000000000a1',
  metadataUri: 'https://example.com/1.json',
} satisfies AssetIntent;

/** The reads of operations by id (each run of the worker starts with one), on a real Postgres. */
describe('operation reads', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let operations: OperationRepository;
  let accountId: string;
  let statements: string[];

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    operations = new OperationRepository(dataSource);
    accountId = randomUUID();
    await dataSource.query(`INSERT INTO accounts (id, email, password_hash) VALUES ($1, $2, 'x')`, [
      accountId,
      `reads-${accountId}@example.com`,
    ]);
    // The statements sent on the pool's connections, by name.
    const pool = (dataSource.driver as PostgresDriver).master as Pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    jest.spyOn(pool, 'query').mockImplementation((...args: unknown[]) => {
      const [config] = args as [{ name?: string }];
      if (typeof config === 'object' && config?.name) statements.push(config.name);
      return query(...args);
    });
  });

  beforeEach(() => {
    statements = [];
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await dataSource?.destroy();
    await services?.stop();
  });

  const stored = async (count: number) => {
    const rows = Array.from({ length: count }, (_, i) =>
      newOperationEntity(accountId, { ...MINT, metadataUri: `https://example.com/${i}.json` }),
    );
    for (const row of rows) await operations.insert(scopeOf(dataSource.manager), row);
    return rows;
  };

  it('reads the operations asked for at once in two statements, each its own row', async () => {
    const rows = await stored(10);
    const unknown = randomUUID();
    const read = await Promise.all(
      [...rows.map((row) => row.id), unknown].map((id) => operations.findById(id)),
    );
    expect(read.map((operation) => operation?.id ?? null)).toEqual([
      ...rows.map((row) => row.id),
      null,
    ]);
    expect(read.map((operation) => operation?.intent)).toEqual([
      ...rows.map((row) => row.intent),
      undefined,
    ]);
    // The first alone, at once; the ten asked while it ran, together.
    expect(statements).toEqual(['operations-by-ids', 'operations-by-ids']);
  });

  it('reads the first query lane apart from the fair one', async () => {
    const [fair, first] = await stored(2);
    const read = await Promise.all([
      operations.findById(fair.id),
      QueryPriority.first(() => operations.findById(first.id)),
      operations.findById(fair.id),
    ]);
    expect(read.map((operation) => operation!.id)).toEqual([fair.id, first.id, fair.id]);
    // The first lane's read does not wait for the fair lane's statement.
    expect(statements).toHaveLength(3);
  });
});
