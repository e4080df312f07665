/**
 * The RPC endpoints of one network, in order of preference. A transport failure (unreachable,
 * connection reset, no answer in time) takes an endpoint out for a cool-down: calls go to the
 * first endpoint that is up, and a call whose endpoint fails is tried again on the next one that
 * is up. When every endpoint is out, the one that failed longest ago is tried anyway: refusing to
 * try would turn a passing outage into a certain failure.
 *
 * Only transport failures count. A JSON-RPC error answer comes from a live node; another node of
 * the same chain would answer the same, so it is the caller's to handle.
 *
 * Re-trying a send on another endpoint is safe because callers send signed bytes: the same bytes
 * on any node of the chain are the same transaction (same hash or signature), never a second one.
 */

export type EndpointState = 'up' | 'cooling_down';

/** One endpoint as /health shows it. */
export interface EndpointHealth {
  /** Position in the configured list (0 is the preferred endpoint). */
  index: number;
  /** Scheme, host and port only: a path, query or user info may carry a provider's API key. */
  url: string;
  state: EndpointState;
  lastErrorAt: Date | null;
}

/** What the pool remembers of an endpoint: enough to choose, nothing else. */
export interface EndpointRecord {
  /** When its last transport failure happened (ms since epoch), null if never. */
  failedAt: number | null;
  /** Passed over until then (ms since epoch); 0 when up. */
  coolingUntil: number;
}

/**
 * Which endpoints one call may try, in order: every endpoint that is up, in configured order;
 * when none is, only the one that failed longest ago (the likeliest to be back).
 */
export function attemptOrder(records: readonly EndpointRecord[], now: number): number[] {
  const up = records.flatMap((record, index) => (record.coolingUntil <= now ? [index] : []));
  if (up.length > 0) return up;
  let oldest = 0;
  records.forEach((record, index) => {
    if ((record.failedAt ?? 0) < (records[oldest].failedAt ?? 0)) oldest = index;
  });
  return [oldest];
}

/** `https://user:key@rpc.example:8545/v3/KEY?x=y` -> `https://rpc.example:8545`. */
export function redactRpcUrl(url: string): string {
  const { protocol, host } = new URL(url);
  return `${protocol}//${host}`;
}

/**
 * The log line for an endpoint taken out. It names the error by its code or name only: error
 * messages can carry the request's URL, and with it a provider's key.
 */
export function takenOutMessage(
  network: string,
  endpoint: { index: number; url: string },
  error: unknown,
  cooldownMs: number,
): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  const kind = typeof code === 'string' ? code : typeof name === 'string' ? name : 'error';
  return (
    `${network} RPC endpoint ${endpoint.index} (${endpoint.url}) failed (${kind}); ` +
    `using the others for ${cooldownMs} ms`
  );
}

/** An attempt on one endpoint got no answer within the attempt's time. */
export class RpcAttemptTimeout extends Error {
  constructor(ms: number) {
    super(`no answer in ${ms} ms`);
    this.name = 'RpcAttemptTimeout';
  }
}

export interface EndpointPoolOptions {
  /** How long a failed endpoint is passed over. */
  cooldownMs: number;
  /** Each attempt on one endpoint is given this long before the next endpoint is tried. */
  attemptTimeoutMs: number;
  /** Whether an error is the endpoint's fault (unreachable...) rather than a node's answer. */
  isTransportFailure(error: unknown): boolean;
  /** The error a timed-out attempt throws (callers may expect their family's transport error). */
  timeoutError?(ms: number): Error;
  /** Told once when an endpoint goes from up to cooling down (for a log line). */
  onTakenOut?(endpoint: { index: number; url: string }, error: unknown): void;
  now?: () => number;
}

export class RpcEndpointPool<C> {
  private readonly records: EndpointRecord[];
  private readonly now: () => number;

  constructor(
    private readonly endpoints: readonly { url: string; client: C }[],
    private readonly options: EndpointPoolOptions,
  ) {
    if (endpoints.length === 0) throw new Error('An RPC endpoint pool needs an endpoint');
    this.records = endpoints.map(() => ({ failedAt: null, coolingUntil: 0 }));
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.endpoints.length;
  }

  clients(): C[] {
    return this.endpoints.map((endpoint) => endpoint.client);
  }

  /** The client a call would use first now. */
  active(): C {
    return this.endpoints[attemptOrder(this.records, this.now())[0]].client;
  }

  /**
   * Runs `work` on the first endpoint that is up; on a transport failure, on the next one that
   * is up, and so on. Throws the last failure, or at once any error that is a node's answer.
   */
  async run<T>(work: (client: C) => Promise<T>): Promise<T> {
    let failure: unknown;
    for (const index of attemptOrder(this.records, this.now())) {
      try {
        return await this.attempt(index, work);
      } catch (error) {
        if (!this.isTransportFailure(error)) throw error;
        failure = error;
      }
    }
    throw failure;
  }

  /** One attempt on one endpoint, its outcome recorded (health probes call it per endpoint). */
  async attempt<T>(
    index: number,
    work: (client: C) => Promise<T>,
    timeoutMs = this.options.attemptTimeoutMs,
  ): Promise<T> {
    try {
      const result = await this.bounded(work(this.endpoints[index].client), timeoutMs);
      this.markUp(index);
      return result;
    } catch (error) {
      // A node's error answer shows the endpoint is alive: only transport failures take it out.
      if (this.isTransportFailure(error)) this.markDown(index, error);
      else this.markUp(index);
      throw error;
    }
  }

  report(): EndpointHealth[] {
    const now = this.now();
    return this.endpoints.map((endpoint, index) => {
      const record = this.records[index];
      return {
        index,
        url: redactRpcUrl(endpoint.url),
        state: record.coolingUntil > now ? 'cooling_down' : 'up',
        lastErrorAt: record.failedAt === null ? null : new Date(record.failedAt),
      };
    });
  }

  private isTransportFailure(error: unknown): boolean {
    return error instanceof RpcAttemptTimeout || this.options.isTransportFailure(error);
  }

  private markUp(index: number): void {
    this.records[index].coolingUntil = 0;
  }

  private markDown(index: number, error: unknown): void {
    const record = this.records[index];
    const now = this.now();
    const wasUp = record.coolingUntil <= now;
    record.failedAt = now;
    record.coolingUntil = now + this.options.cooldownMs;
    if (wasUp) {
      this.options.onTakenOut?.({ index, url: redactRpcUrl(this.endpoints[index].url) }, error);
    }
  }

  private async bounded<T>(work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(this.options.timeoutError?.(ms) ?? new RpcAttemptTimeout(ms)),
        ms,
      );
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
