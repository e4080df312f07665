import { RpcError, RpcErrorCode } from './rpc.errors';

export type RpcMethod = (params: unknown[]) => unknown;
export type RpcId = string | number | null;

interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: RpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** JSON-RPC 2.0 framing: parse, validate, batches, notifications, errors. Transport-agnostic. */
export class JsonRpcDispatcher {
  constructor(private readonly methods: ReadonlyMap<string, RpcMethod>) {}

  /** The response body, or undefined when the request held only notifications. */
  handle(body: string): string | undefined {
    let request: unknown;
    try {
      request = JSON.parse(body);
    } catch {
      return JSON.stringify(
        errorResponse(null, new RpcError(RpcErrorCode.parseError, 'Parse error')),
      );
    }
    if (!Array.isArray(request)) {
      const response = this.handleOne(request);
      return response ? JSON.stringify(response) : undefined;
    }
    if (request.length === 0) {
      return JSON.stringify(
        errorResponse(null, new RpcError(RpcErrorCode.invalidRequest, 'Invalid request')),
      );
    }
    const responses = request.map((item) => this.handleOne(item)).filter((r) => r !== undefined);
    return responses.length > 0 ? JSON.stringify(responses) : undefined;
  }

  private handleOne(request: unknown): JsonRpcResponse | undefined {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return errorResponse(null, new RpcError(RpcErrorCode.invalidRequest, 'Invalid request'));
    }
    const { jsonrpc, method, params, id } = request as Record<string, unknown>;
    const validId =
      id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
    const responseId: RpcId = validId ? (id ?? null) : null;
    if (jsonrpc !== '2.0' || typeof method !== 'string' || !validId) {
      return errorResponse(
        responseId,
        new RpcError(RpcErrorCode.invalidRequest, 'Invalid request'),
      );
    }
    const isNotification = !('id' in request);
    const result = this.call(method, params);
    if (isNotification) return undefined;
    return result instanceof RpcError
      ? errorResponse(responseId, result)
      : { jsonrpc: '2.0', result: result.value, id: responseId };
  }

  private call(method: string, params: unknown): RpcError | { value: unknown } {
    const handler = this.methods.get(method);
    if (!handler) return new RpcError(RpcErrorCode.methodNotFound, 'Method not found');
    if (params !== undefined && params !== null && !Array.isArray(params)) {
      return RpcError.invalidParams('Invalid params: expected an array of parameters');
    }
    try {
      return { value: handler((params as unknown[] | null | undefined) ?? []) };
    } catch (err) {
      if (err instanceof RpcError) return err;
      return new RpcError(RpcErrorCode.internalError, `Internal error: ${(err as Error).message}`);
    }
  }
}

function errorResponse(id: RpcId, error: RpcError): JsonRpcResponse {
  return { jsonrpc: '2.0', error: error.toJSON(), id };
}
