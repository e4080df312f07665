import { AppError, boundedText } from '@app/common';
import { RpcUnavailable, SolanaRpcError, SolanaTransportError, plainNodeText } from '@app/chains';
import { isDatabaseUnavailable } from '@app/database';
import { RetryLater } from './retry-later';

/**
 * What a run of an operation that threw means:
 * - `deterministic`: running it again cannot change the outcome (a refusal, a value that cannot
 *   be encoded): the operation may fail at once with `error`, if nothing of it can still land;
 * - `transient`: a fault of the moment (RPC, network, Postgres, Redis, a timeout): retried until
 *   the deadline; `reason` says what happened in words fit for the client (no URLs, hosts,
 *   payloads).
 */
export type FailureVerdict =
  | { kind: 'deterministic'; error: AppError }
  /** `unrecognised`: an error this classifier does not know (counted, so it can be taught). */
  | { kind: 'transient'; reason: string; unrecognised?: true };

/** ethers codes of a value that cannot be encoded: the same input fails the same way. */
const ETHERS_ENCODING_CODES = new Set([
  'INVALID_ARGUMENT',
  'MISSING_ARGUMENT',
  'UNEXPECTED_ARGUMENT',
  'NUMERIC_FAULT',
  'BUFFER_OVERRUN',
]);
/** ethers codes of a failed exchange with a node. */
const ETHERS_TRANSIENT_CODES = new Set([
  'NETWORK_ERROR',
  'TIMEOUT',
  'SERVER_ERROR',
  'BAD_DATA',
  'CANCELLED',
  'UNKNOWN_ERROR',
]);
/**
 * Node's system error codes (ECONNRESET, ETIMEDOUT, EAI_AGAIN...) and its socket, stream and
 * HTTP codes, undici's too: a connection failed. Node's other `ERR_` codes (ERR_OUT_OF_RANGE,
 * ERR_INVALID_ARG_TYPE) are about the values passed, not the connection.
 */
const CONNECTION_CODE = /^(E(?!RR_)[A-Z_]+|ERR_(SOCKET|STREAM|HTTP)\w*|UND_ERR\w*)$/;
/**
 * Postgres SQLSTATE classes worth retrying beyond what `isDatabaseUnavailable` knows (a lost or
 * refused connection, a server going away or taking reads only): insufficient resources (53:
 * disk full, out of memory) and operator intervention (57: a cancelled statement).
 */
const POSTGRES_RETRYABLE_CLASS = /^(53|57)[0-9A-Z]{3}$/;
const MAX_CAUSES = 5;
const REASON_MAX = 200;

/**
 * Sorts a thrown value into deterministic or transient. Pure: decided by the error alone. When
 * in doubt, transient: retrying is always safe, and the operation deadline ends it anyway.
 */
export function classifyFailure(error: unknown): FailureVerdict {
  const transient = transientReason(error);
  if (transient !== null) return { kind: 'transient', reason: transient };
  if (error instanceof AppError) return { kind: 'deterministic', error };
  const encoding = encodingReason(error);
  if (encoding !== null) {
    return {
      kind: 'deterministic',
      error: AppError.badRequest(`The transaction could not be encoded: ${encoding}.`),
    };
  }
  return { kind: 'transient', reason: `Unexpected error (${nameOf(error)}).`, unrecognised: true };
}

/** The client's words for a fault worth retrying, or null when the error is not one. */
function transientReason(error: unknown): string | null {
  if (error instanceof RetryLater || error instanceof RpcUnavailable) return error.message;
  if (error instanceof AppError && error.status === 503) return error.message;
  if (error instanceof SolanaTransportError) return 'The Solana RPC could not be reached.';
  if (error instanceof SolanaRpcError) {
    // The reason may reach the client (retries exhausted): the node's words, not its payloads.
    const said = plainNodeText(error.message, REASON_MAX);
    return `The Solana RPC answered with error ${error.code}${said ? `: ${said}` : '.'}`;
  }
  // A connection failure may come wrapped (fetch's TypeError "fetch failed" carries it as cause).
  let current = asError(error);
  for (let depth = 0; depth < MAX_CAUSES && current; depth++) {
    const code = codeOf(current);
    if (code && CONNECTION_CODE.test(code)) return `A connection failed (${code}).`;
    if (code && ETHERS_TRANSIENT_CODES.has(code)) return `The RPC call failed (${code}).`;
    if (isDatabaseUnavailable(current) || (code && POSTGRES_RETRYABLE_CLASS.test(code))) {
      return `The database was unavailable${code ? ` (${code})` : ''}.`;
    }
    current = asError(current.cause ?? (current as { driverError?: unknown }).driverError);
  }
  return null;
}

/** Why a value could not be encoded into a transaction, or null when the error is not that. */
function encodingReason(thrown: unknown): string | null {
  const error = asError(thrown);
  if (!error) return null;
  const code = codeOf(error);
  if (code && ETHERS_ENCODING_CODES.has(code)) {
    const { shortMessage, argument } = error as { shortMessage?: unknown; argument?: unknown };
    const what = typeof shortMessage === 'string' ? shortMessage : code;
    const where = typeof argument === 'string' && argument ? ` (${argument})` : '';
    return boundedText(`${what}${where}`, REASON_MAX);
  }
  // Building a transaction out of an intent: an amount beyond u64 (RangeError), a value of the
  // wrong shape (TypeError), a decimal where an integer belongs (BigInt's SyntaxError). Other
  // SyntaxErrors (JSON.parse of a node's garbled answer) are not the input's fault.
  if (
    error.name === 'RangeError' ||
    error.name === 'TypeError' ||
    (error.name === 'SyntaxError' && /BigInt/.test(error.message))
  ) {
    return boundedText(error.message, REASON_MAX);
  }
  return null;
}

/**
 * The value as an Error, by shape: errors made by Node's own modules (Buffer's RangeError) are
 * not `instanceof` the Error of another realm (a test sandbox), and names survive that.
 */
function asError(value: unknown): Error | null {
  if (value instanceof Error) return value;
  const shaped = value as { name?: unknown; message?: unknown } | null;
  return typeof shaped === 'object' &&
    shaped !== null &&
    typeof shaped.name === 'string' &&
    typeof shaped.message === 'string'
    ? (shaped as Error)
    : null;
}

function codeOf(error: Error): string | null {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
}

function nameOf(thrown: unknown): string {
  const error = asError(thrown);
  return error ? boundedText(error.name, 60) : typeof thrown;
}
