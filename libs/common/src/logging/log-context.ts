import { AsyncLocalStorage } from 'node:async_hooks';

/** The ids that tie a log line to what caused it; every line logged inside a context carries them. */
export interface LogBindings {
  requestId?: string;
  operationId?: string;
  batchId?: string;
  jobId?: string;
  queue?: string;
  attempt?: number;
}

const storage = new AsyncLocalStorage<LogBindings>();

/**
 * Carries log bindings along an async flow: an HTTP request in the API, a job in the worker.
 * The request id goes from one to the other in the job's data.
 */
export const LogContext = {
  run<T>(bindings: LogBindings, fn: () => T): T {
    return storage.run({ ...storage.getStore(), ...bindings }, fn);
  },
  current(): LogBindings | undefined {
    return storage.getStore();
  },
  /**
   * Runs outside any context: for long-lived things made lazily during a request (a Redis
   * connection), whose later events would otherwise all log that request's id.
   */
  outside<T>(fn: () => T): T {
    return storage.exit(fn);
  },
};
