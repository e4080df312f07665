import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/** Column types whose values the driver passes to Postgres as they are. */
const PASSED_AS_THEY_ARE = new Set<unknown>(['uuid', 'text', 'varchar', 'integer', 'int', 'bytea']);

/**
 * A column whose values go to Postgres as the entity holds them: of a plain property, with no
 * transformer, of a type the driver does not convert. A 10,000-entry airdrop's insert asks the
 * driver for 250,000 values otherwise (0.2 s of the request's CPU, profiled).
 */
function isPlain(column: ColumnMetadata): boolean {
  return (
    !column.transformer &&
    !column.embeddedMetadata &&
    !column.relationMetadata &&
    PASSED_AS_THEY_ARE.has(column.type)
  );
}

export interface InsertParts {
  table: string;
  /** `"col_a", "col_b"` */
  columns: string;
  /** `$4::uuid, $5::jsonb`: typed, so they also fit `INSERT ... SELECT`. */
  values: string;
}

/**
 * An entity row as the parts of an INSERT, its values (as TypeORM would persist them: JSON,
 * transformers) appended to `params`. For statements TypeORM cannot build: several writes in
 * one statement with data-modifying CTEs.
 */
export function insertParts<T extends ObjectLiteral>(
  dataSource: DataSource,
  entity: EntityTarget<T>,
  row: T,
  params: unknown[],
): InsertParts {
  const metadata = dataSource.getMetadata(entity);
  const driver = dataSource.driver;
  const columns: string[] = [];
  const values: string[] = [];
  for (const column of metadata.columns) {
    params.push(driver.preparePersistentValue(column.getEntityValue(row), column));
    columns.push(`"${column.databaseName}"`);
    values.push(`$${params.length}::${driver.normalizeType(column)}`);
  }
  return { table: metadata.tableName, columns: columns.join(', '), values: values.join(', ') };
}

/**
 * Many entity rows in one INSERT: each column's values as one typed array parameter, unnested
 * (one statement and a few parameters, however many rows). `where`: only the rows it holds for,
 * a condition on their columns by name as `r."column_name"`.
 */
export function insertManyStatement<T extends ObjectLiteral>(
  dataSource: DataSource,
  entity: EntityTarget<T>,
  rows: T[],
  params: unknown[],
  where?: string,
): string {
  const metadata = dataSource.getMetadata(entity);
  const driver = dataSource.driver;
  const columns: string[] = [];
  const arrays: string[] = [];
  for (const column of metadata.columns) {
    const plain = isPlain(column);
    const name = column.propertyName;
    params.push(
      rows.map((row): unknown =>
        plain
          ? (row as Record<string, unknown>)[name]
          : driver.preparePersistentValue(column.getEntityValue(row), column),
      ),
    );
    columns.push(`"${column.databaseName}"`);
    arrays.push(`$${params.length}::${driver.normalizeType(column)}[]`);
  }
  const names = columns.join(', ');
  const source = `unnest(${arrays.join(', ')})`;
  return where
    ? `INSERT INTO "${metadata.tableName}" (${names})
    SELECT * FROM ${source} AS r(${names}) WHERE ${where}`
    : `INSERT INTO "${metadata.tableName}" (${names})
    SELECT * FROM ${source}`;
}
