/** A step that cannot finish now but may later: the job is retried with backoff. */
export class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryLater';
  }
}
