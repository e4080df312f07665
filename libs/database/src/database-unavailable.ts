import { failedToConnect } from './connect-phase-client';

/** What a client is told to wait before retrying while Postgres is unreachable (Retry-After). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Whether an error means Postgres could not be reached or dropped the connection, as opposed to
 * a query it refused. The first is an outage (the API answers 503, retry later); the second a
 * bug or a constraint (500, or the caller's own mapping).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return causes(error).some(isConnectionFailure);
}

/**
 * Whether the error says for certain that nothing was written: a connection that could not be
 * made at all (refused, no such host, reset or closed while being made, the pool's connect
 * timeout, a server not taking connections), or a server that refused to write. Any other
 * unavailability may have cut a statement already sent, whose commit may have landed.
 */
export function wroteNothing(error: unknown): boolean {
  return causes(error).some((cause) => {
    if (failedToConnect(cause)) return true;
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && NOTHING_WRITTEN_CODES.has(code)) return true;
    return typeof message === 'string' && CONNECT_MESSAGES.some((known) => known.test(message));
  });
}

/** Socket errors of a connection that could not be made: nothing was sent on it. */
const UNMADE_SOCKET_CODES = [
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
];

/**
 * A server that takes reads only (25006): a standby, or a node named primary whose promotion
 * has not ended, which a proxy can route writes to for a moment during a failover. The
 * statement was refused: nothing was written.
 */
const READ_ONLY_SERVER = '25006';

/**
 * A server starting up or shutting down (not taking connections), a full connection table, or
 * one refusing writes: nothing was written.
 */
const NOTHING_WRITTEN_CODES = new Set([...UNMADE_SOCKET_CODES, '57P03', '53300', READ_ONLY_SERVER]);

const CONNECT_MESSAGES = [
  /^timeout exceeded when trying to connect$/,
  /^Connection terminated due to connection timeout$/,
];

/** Socket errors of a connection that could not be made or was cut. */
const SOCKET_CODES = new Set([
  ...UNMADE_SOCKET_CODES,
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
]);

/**
 * SQLSTATEs of a server that is going away or not taking connections: class 08 (connection
 * exception), admin/crash shutdown, starting up, a full connection table, and reads only.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300', READ_ONLY_SERVER]);

/** node-postgres and pg-pool say these in words only, without a code. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/, // unexpectedly, or due to connection timeout
  /^timeout exceeded when trying to connect$/, // no pooled connection within the timeout
  /^Client has encountered a connection error and is not queryable$/,
];

function isConnectionFailure(error: object): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) {
      return true;
    }
  }
  return typeof message === 'string' && CONNECTION_MESSAGES.some((known) => known.test(message));
}

/**
 * The error and what it wraps: TypeORM's `driverError`, and an AggregateError's errors (a
 * connect to a host with several addresses fails once per address). Not `cause`: a chain RPC's
 * `fetch failed` carries its ECONNREFUSED there, and that is not the database.
 */
function causes(error: unknown, depth = 0): object[] {
  if (typeof error !== 'object' || error === null || depth > 3) return [];
  const { driverError } = error as { driverError?: unknown };
  const nested: unknown[] =
    error instanceof AggregateError ? [driverError, ...(error.errors as unknown[])] : [driverError];
  return [error, ...nested.flatMap((inner) => causes(inner, depth + 1))];
}
