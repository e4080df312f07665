/** A connection that says when it has ended for good: ioredis's `Redis` and `Cluster` do. */
export interface EndingConnection {
  once(event: 'end', listener: () => void): unknown;
}

/**
 * How long an ended connection may go unexplained by a shutdown: the shutdown hooks run
 * together, so a connection the process closes itself can end a moment before the guard hears
 * that the process is stopping.
 */
export const SHUTDOWN_GRACE_MS = 2_000;

/**
 * Calls `onEnded` when a watched connection ends while the process is not stopping.
 *
 * ioredis reconnects by itself through outages and failovers, and ends a connection only when
 * told to or when it gives up. It gives up on some paths: a Sentinel's +switch-master landing
 * while a connection was still reconnecting to the killed primary ended it for good (2ae77ce).
 * A worker left with an ended queue connection takes no more jobs, yet its lease renewals (on
 * another connection) keep its shards from everyone else: the operations of those shards would
 * wait forever. Exiting instead lets the leases lapse and the supervisor start a new process.
 */
export class EndedConnectionGuard {
  private stopping = false;

  constructor(
    private readonly onEnded: (name: string) => void,
    private readonly graceMs = SHUTDOWN_GRACE_MS,
  ) {}

  watch(name: string, connection: EndingConnection): void {
    connection.once('end', () => {
      if (this.stopping) return;
      setTimeout(() => {
        if (!this.stopping) this.onEnded(name);
      }, this.graceMs).unref();
    });
  }

  /** The process is shutting down: connections it ends from now on are its own doing. */
  stop(): void {
    this.stopping = true;
  }
}
