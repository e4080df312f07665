import { Logger } from '@nestjs/common';
import { PassThrough, type Readable } from 'node:stream';
import type { AccountEventFeed } from '@app/domain';
import { sseCommentFrame, sseEventFrame, sseRetryFrame } from './sse-frames';

export interface EventStreamTiming {
  heartbeatMs: number;
  pollMs: number;
  retryMs: number;
}

/** Events read from Postgres at a time: a long catch-up is sent page by page, as the client reads. */
const READ_BATCH = 100;

/**
 * One client's live stream of its account's events, as Server-Sent Events: every event after
 * `after`, then each new one as it commits. It reads Postgres after the last sequence it sent
 * whenever it is woken (a notification for its account, or the fallback poll), so an event is
 * sent once, in order, whatever wakes it and however often. Writes wait for the client to read
 * (backpressure): a slow client holds one page in memory, not the account's history.
 */
export class EventStream {
  private readonly logger = new Logger(EventStream.name);
  private readonly output = new PassThrough();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly closeHandlers: (() => void)[] = [];
  private lastSent = 0;
  private reading = false;
  private readAgain = false;
  private closed = false;
  private failing = false;

  constructor(
    readonly accountId: string,
    private readonly feed: Pick<AccountEventFeed, 'page'>,
    private readonly timing: EventStreamTiming,
  ) {
    // The client went away (Fastify destroys the body when the response closes) or we ended it.
    this.output.on('close', () => this.close());
    this.output.on('error', () => this.close());
  }

  /** What the HTTP response sends. */
  get body(): Readable {
    return this.output;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `handler` once the stream is closed, by either side. */
  onClose(handler: () => void): void {
    if (this.closed) handler();
    else this.closeHandlers.push(handler);
  }

  /** Sends the reconnection hint, then every event after `after`, then follows. */
  start(after: number): void {
    this.lastSent = after;
    this.write(sseRetryFrame(this.timing.retryMs));
    this.timers.push(
      setInterval(() => this.heartbeat(), this.timing.heartbeatMs),
      setInterval(() => this.wake(), this.timing.pollMs),
    );
    this.wake();
  }

  /** The account may have new events: read them (once more after the read under way, if any). */
  wake(): void {
    if (this.closed) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    void this.readNew();
  }

  /** Ends the response (the client sees the stream end and reconnects after `retry`). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    if (!this.output.destroyed && !this.output.writableEnded) this.output.end();
    for (const handler of this.closeHandlers.splice(0)) handler();
  }

  private async readNew(): Promise<void> {
    this.reading = true;
    try {
      do {
        this.readAgain = false;
        const page = await this.feed.page(this.accountId, this.lastSent, READ_BATCH);
        if (this.closed) return;
        let clientKeepsUp = true;
        for (const event of page.events) clientKeepsUp = this.write(sseEventFrame(event));
        this.lastSent = page.next_after;
        if (!clientKeepsUp && !this.closed) await this.drained();
        if (page.has_more) this.readAgain = true;
        this.failing = false;
      } while (this.readAgain && !this.closed);
    } catch (error) {
      // Postgres away: the stream stays open and the next wakeup or poll reads again.
      if (!this.failing) this.logger.warn(`Event stream read failed: ${String(error)}`);
      this.failing = true;
    } finally {
      this.reading = false;
    }
  }

  /** A heartbeat only where the client keeps up: one stuck behind a full buffer needs none. */
  private heartbeat(): void {
    if (!this.output.writableNeedDrain) this.write(sseCommentFrame('heartbeat'));
  }

  private write(frame: string): boolean {
    if (this.closed || this.output.destroyed) return false;
    return this.output.write(frame);
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.destroyed) return resolve();
      const done = (): void => {
        this.output.off('drain', done);
        this.output.off('close', done);
        resolve();
      };
      this.output.on('drain', done);
      this.output.on('close', done);
    });
  }
}
