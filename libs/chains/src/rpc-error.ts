import { AppError } from '@app/common';

/**
 * An RPC call that failed or timed out, as a 502 for the client. The message names the network
 * only: RPC URLs can carry provider credentials.
 */
export function rpcUnavailable(network: string): AppError {
  return new AppError('BAD_GATEWAY', `The ${network} RPC did not answer; try again.`);
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
    if (error instanceof AppError || options.passThrough) throw error;
    throw rpcUnavailable(network);
  } finally {
    clearTimeout(timer);
  }
}
