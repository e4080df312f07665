/**
 * A step that cannot finish now but may later: the job is retried with backoff. Its message is
 * the operation's `last_error`, shown to the client if retries run out: it must say what
 * happened without internals (no URLs, hosts or payloads); `cause` keeps the raw error for logs.
 */
export class RetryLater extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryLater';
  }
}
