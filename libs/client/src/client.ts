import { AssetIssuanceError, OperationTimeoutError } from './errors';
import type {
  Method,
  OperationView,
  PathsFor,
  RequestArgs,
  RequestOptions,
  ResponseData,
} from './types';

export interface AssetIssuanceClientOptions {
  /** e.g. `http://127.0.0.1:3000` */
  baseUrl: string;
  apiKey: string;
  /** Retries after a network error, 429 or 503 (default 3); 0 turns them off. */
  retries?: number;
  /** The first retry's wait when the answer names none (Retry-After); doubles each time. */
  retryDelayMs?: number;
  /** Another fetch (a proxy agent, a test double); the global one by default. */
  fetch?: typeof fetch;
}

export interface WaitOptions {
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Between two reads (default 500 ms). */
  intervalMs?: number;
}

/** Routes whose writes honour Idempotency-Key: a retry after a lost answer sends nothing twice. */
const IDEMPOTENT_WRITES = /^\/(tokens|nfts)(\/|$)/;
const RETRIED_STATUSES = new Set([429, 503]);
const MAX_RETRY_WAIT_MS = 30_000;

/**
 * A typed client of the Asset Issuance API: paths, parameters, bodies and answers come from the
 * API's OpenAPI document (src/generated/schema.ts). Calls answer the envelope's `data` and throw
 * AssetIssuanceError for an error envelope.
 */
export class AssetIssuanceClient {
  private readonly baseUrl: string;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: AssetIssuanceClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retries = options.retries ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 250;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  get<P extends PathsFor<'get'>>(path: P, ...args: RequestArgs<P, 'get'>) {
    return this.request('get', path, ...args);
  }

  post<P extends PathsFor<'post'>>(path: P, ...args: RequestArgs<P, 'post'>) {
    return this.request('post', path, ...args);
  }

  patch<P extends PathsFor<'patch'>>(path: P, ...args: RequestArgs<P, 'patch'>) {
    return this.request('patch', path, ...args);
  }

  delete<P extends PathsFor<'delete'>>(path: P, ...args: RequestArgs<P, 'delete'>) {
    return this.request('delete', path, ...args);
  }

  /** Reads GET /operations/{id} until the operation is confirmed or failed, and answers it. */
  async waitForOperation(operationId: string, options: WaitOptions = {}): Promise<OperationView> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const operation = await this.get('/operations/{operation_id}', {
        path: { operation_id: operationId },
      });
      if (operation.status === 'confirmed' || operation.status === 'failed') return operation;
      if (Date.now() >= deadline) {
        throw new OperationTimeoutError(operationId, operation.status, timeoutMs);
      }
      await sleep(Math.min(options.intervalMs ?? 500, Math.max(0, deadline - Date.now())));
    }
  }

  async request<M extends Method, P extends PathsFor<M>>(
    method: M,
    path: P,
    ...[options]: RequestArgs<P, M>
  ): Promise<ResponseData<P, M>> {
    const given = (options ?? {}) as RequestOptions<P, M>;
    const url = this.url(path, given.path, given.query);
    const write = method !== 'get';
    const idempotent = write && IDEMPOTENT_WRITES.test(path);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'api-key': this.options.apiKey,
      ...(given.body === undefined ? {} : { 'content-type': 'application/json' }),
      // One key for every attempt of this call: the API answers a repeat with the first result.
      ...(idempotent
        ? { 'idempotency-key': given.idempotencyKey ?? globalThis.crypto.randomUUID() }
        : {}),
      ...(given.respondAsync ? { prefer: 'respond-async' } : {}),
      ...given.headers,
    };
    const init: RequestInit = {
      method: method.toUpperCase(),
      headers,
      body: given.body === undefined ? undefined : JSON.stringify(given.body),
      signal: given.signal,
    };
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.fetch(url, init);
      } catch (error) {
        // The request may have arrived: only a read, or a write with its key, can be sent again.
        const resendable = !write || idempotent;
        if (!resendable || attempt >= this.retries || given.signal?.aborted) throw error;
        await sleep(this.backoff(attempt));
        continue;
      }
      if (RETRIED_STATUSES.has(response.status) && attempt < this.retries) {
        await response.body?.cancel();
        await sleep(this.backoff(attempt, response.headers.get('retry-after')));
        continue;
      }
      return (await this.answer(response)) as ResponseData<P, M>;
    }
  }

  private async answer(response: Response): Promise<unknown> {
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const requestId = response.headers.get('x-request-id');
    if (!response.ok) {
      const envelope = (body ?? {}) as { error?: unknown; message?: unknown };
      throw new AssetIssuanceError(
        response.status,
        typeof envelope.error === 'string' ? envelope.error : response.statusText,
        typeof envelope.message === 'string' ? envelope.message : text.slice(0, 500),
        requestId,
      );
    }
    const envelope = body as { success?: unknown; data?: unknown } | undefined;
    // Hosted metadata is a bare document; everything else is the envelope.
    return envelope?.success === true && 'data' in envelope ? envelope.data : body;
  }

  /** Path and query parameters are strings, numbers or booleans (the document has no other). */
  private url(
    path: string,
    params?: Record<string, string | number | boolean>,
    query?: object,
  ): string {
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params?.[name];
      if (value === undefined) throw new TypeError(`path parameter ${name} is missing`);
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    const entries = Object.entries(query ?? {}) as [string, string | number | boolean | null][];
    for (const [key, value] of entries) {
      if (value !== undefined && value !== null) search.set(key, String(value));
    }
    const suffix = search.size ? `?${search.toString()}` : '';
    return `${this.baseUrl}${filled}${suffix}`;
  }

  /** Retry-After when the API sends one (seconds), else a doubling wait with jitter. */
  private backoff(attempt: number, retryAfter?: string | null): number {
    const seconds = Number(retryAfter);
    if (retryAfter && Number.isFinite(seconds)) return Math.min(seconds * 1000, MAX_RETRY_WAIT_MS);
    const base = this.retryDelayMs * 2 ** attempt;
    return Math.min(base / 2 + Math.random() * base, MAX_RETRY_WAIT_MS);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
