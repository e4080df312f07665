import { Logger } from '@nestjs/common';
import { AppError } from '@app/common';
import { DATABASE_RETRY_AFTER_SECONDS, wroteNothing, isDatabaseUnavailable } from '@app/database';

const logger = new Logger('StoreThroughCut');

/** What a write stores, named for the client: `operation <id>`, to look up at `path`. */
export interface StoredRow {
  noun: 'operation' | 'batch';
  id: string;
  path: string;
}

/**
 * Runs `store` (the statement or transaction that stores a new row), whose connection may be cut
 * after the server committed: the primary dying, or the network dropping, between the commit
 * and its answer. A connection that could not be made sent nothing: its error stands (the API's
 * 503, "nothing was accepted"). Cut later, the row is read back by its id on a new connection:
 * found, the write committed and `storedResult` is returned, as if the answer had come. Not
 * found, or not readable, the answer is a 503 that says the outcome is not known and names the
 * id, to look up or to retry with the same Idempotency-Key: a commit still waiting for its
 * synchronous standby when cut can become visible after the read.
 */
export async function storeThroughCut<T>(
  store: () => Promise<T>,
  storedResult: T,
  readBack: () => Promise<unknown>,
  row: StoredRow,
): Promise<T> {
  try {
    return await store();
  } catch (error) {
    if (!isDatabaseUnavailable(error) || wroteNothing(error)) throw error;
    const found = await readBack().then(
      (stored) => stored !== null && stored !== undefined,
      () => false,
    );
    if (found) {
      logger.warn(`Storing ${row.noun} ${row.id} lost its answer (${String(error)}); it committed`);
      return storedResult;
    }
    logger.warn(`Storing ${row.noun} ${row.id} was cut (${String(error)}); outcome unknown`);
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'The database became unavailable while this write was being stored, so whether it was ' +
        `accepted is not known. If it was, it is ${row.noun} ${row.id}: retry with the same ` +
        `Idempotency-Key to get it, or GET ${row.path}. ` +
        `Retry in ${DATABASE_RETRY_AFTER_SECONDS} s.`,
      { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS), 'cache-control': 'no-store' },
    );
  }
}
