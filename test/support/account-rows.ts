import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';

/** A bare account row for repository tests (no wallets, no usable password); its id. */
export async function insertAccountRow(dataSource: DataSource, label: string): Promise<string> {
  const id = randomUUID();
  await dataSource.query(`INSERT INTO accounts (id, email, password_hash) VALUES ($1, $2, 'x')`, [
    id,
    `${label}-${id}@example.com`,
  ]);
  return id;
}
