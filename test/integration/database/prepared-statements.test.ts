import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/database';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

/**
 * The service's connections prepare a parameterized statement from its second run on (see
 * PreparingClient), each run with its own values; DATABASE_PREPARED_STATEMENTS=false keeps every
 * statement unnamed. One connection a DataSource, so the prepared statements read are its own.
 */
describe('prepared statements', () => {
  let services: TestServices;

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await services?.stop();
  });

  const withDataSource = async (
    preparedStatements: boolean,
    use: (dataSource: DataSource) => Promise<void>,
  ) => {
    const options = dataSourceOptions(services.databaseUrl, 1, 5_000, preparedStatements);
    const dataSource = await new DataSource(options).initialize();
    try {
      await use(dataSource);
    } finally {
      await dataSource.destroy();
    }
  };

  /** A statement text no other test runs (a fresh id in a comment). */
  const statement = () => `SELECT $1::int + 1 AS next /* ${randomUUID()} */`;

  const preparedTexts = async (dataSource: DataSource): Promise<string[]> =>
    (
      await dataSource.query<{ statement: string }[]>(
        "SELECT statement FROM pg_prepared_statements WHERE name LIKE 'ais\\_%'",
      )
    ).map((row) => row.statement);

  const runs = async (dataSource: DataSource, text: string, values: number[]) => {
    const answers: number[] = [];
    for (const value of values) {
      const [row] = await dataSource.query<{ next: number }[]>(text, [value]);
      answers.push(row.next);
    }
    return answers;
  };

  it('prepares a statement at its second run, each run answering its own values', async () => {
    await withDataSource(true, async (dataSource) => {
      const text = statement();
      expect(await runs(dataSource, text, [1])).toEqual([2]);
      expect(await preparedTexts(dataSource)).not.toContain(text);
      expect(await runs(dataSource, text, [10, 20, 30])).toEqual([11, 21, 31]);
      expect(await preparedTexts(dataSource)).toContain(text);
    });
  });

  it('leaves a statement run once, and statements without values, unnamed', async () => {
    await withDataSource(true, async (dataSource) => {
      const once = statement();
      await runs(dataSource, once, [5]);
      const plain = `SELECT 1 AS one /* ${randomUUID()} */`;
      await dataSource.query(plain);
      await dataSource.query(plain);
      const prepared = await preparedTexts(dataSource);
      expect(prepared).not.toContain(once);
      expect(prepared).not.toContain(plain);
    });
  });

  it('prepares nothing with DATABASE_PREPARED_STATEMENTS=false', async () => {
    await withDataSource(false, async (dataSource) => {
      const text = statement();
      expect(await runs(dataSource, text, [1, 2, 3])).toEqual([2, 3, 4]);
      expect(await preparedTexts(dataSource)).toEqual([]);
    });
  });

  it('runs a prepared statement again after one of its runs failed', async () => {
    await withDataSource(true, async (dataSource) => {
      const text = `SELECT 10 / $1::int AS next /* ${randomUUID()} */`;
      await runs(dataSource, text, [5, 2]);
      await expect(dataSource.query(text, [0])).rejects.toThrow(/division by zero/);
      expect(await runs(dataSource, text, [10])).toEqual([1]);
      expect(await preparedTexts(dataSource)).toContain(text);
    });
  });
});
