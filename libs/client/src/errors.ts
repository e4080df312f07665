/** The API answered with its error envelope: `error` is the status's short name, `message` why. */
export class AssetIssuanceError extends Error {
  override readonly name = 'AssetIssuanceError';

  constructor(
    /** The HTTP status (400, 401, 404, 409, 429, 502, 503...). */
    readonly status: number,
    /** The envelope's short name of the status, e.g. `Conflict`. */
    readonly error: string,
    message: string,
    /** The response's `x-request-id`, to quote when asking about it. */
    readonly requestId: string | null = null,
  ) {
    super(message);
  }
}

/** `waitForOperation` gave up: the operation was still on its way when the time ran out. */
export class OperationTimeoutError extends Error {
  override readonly name = 'OperationTimeoutError';

  constructor(
    readonly operationId: string,
    readonly lastStatus: string,
    timeoutMs: number,
  ) {
    super(`Operation ${operationId} still ${lastStatus} after ${timeoutMs} ms.`);
  }
}
