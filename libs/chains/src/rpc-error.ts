import { AppError, METRICS } from '@app/common';

/**
 * An RPC call that failed or timed out: a 502 for a client's read, but for an operation a
 * passing fault to retry, never a reason to fail it. The message names the network only: RPC
 * URLs can carry provider credentials.
 */
export class RpcUnavailable extends AppError {
  constructor(network: string) {
    super('BAD_GATEWAY', `The ${network} RPC did not answer; try again.`);
    this.name = 'RpcUnavailable';
  }
}

export function rpcUnavailable(network: string): AppError {
  return new RpcUnavailable(network);
}

/** An error that settles an operation for good (a revert, a refusal), as opposed to a fault. */
export function isDefinitive(error: unknown): error is AppError {
  return error instanceof AppError && !(error instanceof RpcUnavailable);
}

/**
 * Bounds an RPC call. Failures become a 502 for the client, unless `passThrough` asks for the
 * original error (callers that classify node answers themselves).
 */
export async function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  network: string,
  options: { passThrough?: boolean } = {},
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(rpcUnavailable(network)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } catch (error) {
    if (!(error instanceof AppError) || error instanceof RpcUnavailable) {
      METRICS.rpcErrors.inc({ network });
    }
    if (error instanceof AppError || options.passThrough) throw error;
    throw rpcUnavailable(network);
  } finally {
    clearTimeout(timer);
  }
}
