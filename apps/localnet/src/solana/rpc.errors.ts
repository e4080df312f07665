/** JSON-RPC 2.0 error codes, plus the ones Solana validators use. */
export const RpcErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  sendTransactionPreflightFailure: -32002,
  transactionSignatureVerificationFailure: -32003,
  transactionSignatureLenMismatch: -32013,
  unsupportedTransactionVersion: -32015,
  minContextSlotNotReached: -32016,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  static invalidParams(detail: string): RpcError {
    return new RpcError(RpcErrorCode.invalidParams, detail);
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
