/** Error codes of the contract's error table, each with its HTTP status and short name. */
export const ERROR_CODES = {
  BAD_REQUEST: { status: 400, error: 'Bad request' },
  UNAUTHORIZED: { status: 401, error: 'Unauthorized' },
  FORBIDDEN: { status: 403, error: 'Forbidden' },
  NOT_FOUND: { status: 404, error: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, error: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, error: 'Request timeout' },
  CONFLICT: { status: 409, error: 'Conflict' },
  /** The caller's managed wallet cannot pay for the write (contract: "Wallet funds"). */
  INSUFFICIENT_FUNDS: { status: 409, error: 'Insufficient funds' },
  PAYLOAD_TOO_LARGE: { status: 413, error: 'Payload too large' },
  URI_TOO_LONG: { status: 414, error: 'URI too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, error: 'Unsupported media type' },
  EXPECTATION_FAILED: { status: 417, error: 'Expectation failed' },
  TOO_MANY_REQUESTS: { status: 429, error: 'Too many requests' },
  HEADERS_TOO_LARGE: { status: 431, error: 'Request header fields too large' },
  INTERNAL: { status: 500, error: 'Internal server error' },
  BAD_GATEWAY: { status: 502, error: 'Bad gateway' },
  /** An operation whose transient failures (RPC down...) lasted past OPERATION_DEADLINE_MS. */
  RETRIES_EXHAUSTED: { status: 502, error: 'Bad gateway' },
  SERVICE_UNAVAILABLE: { status: 503, error: 'Service unavailable' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const INVALID_BODY_MESSAGE = 'Invalid request body.';

/**
 * A domain error: thrown anywhere below the HTTP layer, mapped to the error envelope by the API's
 * one exception filter. Its message is meant for the client, so it must not carry internals.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  static badRequest(detail: string): AppError {
    return new AppError('BAD_REQUEST', `${INVALID_BODY_MESSAGE} ${detail}`);
  }

  static notFound(message: string): AppError {
    return new AppError('NOT_FOUND', message);
  }

  static conflict(message: string): AppError {
    return new AppError('CONFLICT', message);
  }

  static unauthorized(message = 'Invalid api-key'): AppError {
    return new AppError('UNAUTHORIZED', message);
  }
}
