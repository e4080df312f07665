import { queryDatabase } from './chain-reads';
import { expectError } from './envelope-assertions';
import type { HttpResponse } from './http-client';

async function operationCount(databaseUrl: string): Promise<number> {
  const [row] = await queryDatabase<{ count: string }>(
    databaseUrl,
    'SELECT count(*) FROM operations',
  );
  return Number(row.count);
}

/**
 * The request is a 400 with this message, answered at once, and leaves no operation behind: a
 * refused input is refused before anything is stored, so the worker never sees it.
 */
export async function expectRefusedUnstored(
  databaseUrl: string,
  send: () => Promise<HttpResponse>,
  message: RegExp,
): Promise<void> {
  const before = await operationCount(databaseUrl);
  const started = Date.now();
  const response = await send();
  expectError(response, 400, 'Bad request', message);
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(await operationCount(databaseUrl)).toBe(before);
}
