import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError } from '@app/common';
import { AccountEventFeed, AccountEventWakeups } from '@app/domain';
import { EventStream } from './event-stream';

/** What a client refused for too many open streams is told to wait before trying again. */
const STREAM_CAP_RETRY_AFTER_SECONDS = 5;

/**
 * The live event streams open on this API instance: at most EVENT_STREAMS_PER_ACCOUNT per
 * account, each woken through the process's one shared LISTEN (AccountEventWakeups). On
 * shutdown every stream ends, so that closing the server does not wait for clients that never
 * hang up; a stream asked for while shutting down ends at once. Either way the client reconnects
 * after the `retry` hint, with Last-Event-ID, to an instance that is up.
 */
@Injectable()
export class EventStreams implements BeforeApplicationShutdown {
  private readonly byAccount = new Map<string, Set<EventStream>>();
  private shuttingDown = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly feed: AccountEventFeed,
    private readonly wakeups: AccountEventWakeups,
  ) {}

  /**
   * Opens a stream of the account's events after `start` (`'latest'`: after its last event, so
   * only new ones). 429 when the account already holds its most streams here.
   */
  async open(accountId: string, start: number | 'latest'): Promise<EventStream> {
    const stream = this.reserve(accountId);
    try {
      const unsubscribe = await this.wakeups.subscribe(accountId, () => stream.wake());
      stream.onClose(unsubscribe);
      // Subscribed first: an event committed after this read wakes the stream.
      const after = start === 'latest' ? await this.feed.lastSequence(accountId) : start;
      stream.start(after);
    } catch (error) {
      stream.close();
      throw error;
    }
    if (this.shuttingDown) stream.close();
    return stream;
  }

  /** Counts the stream before anything is awaited, so that concurrent opens cannot pass the cap. */
  private reserve(accountId: string): EventStream {
    const open = this.byAccount.get(accountId) ?? new Set<EventStream>();
    const max = this.config.eventStream.maxPerAccount;
    if (open.size >= max) {
      throw new AppError(
        'TOO_MANY_REQUESTS',
        `This account already has ${max} event streams open on this instance, the most it may ` +
          `hold: close one first; retry in ${STREAM_CAP_RETRY_AFTER_SECONDS} s.`,
        { 'Retry-After': String(STREAM_CAP_RETRY_AFTER_SECONDS) },
      );
    }
    const stream = new EventStream(accountId, this.feed, this.config.eventStream);
    open.add(stream);
    this.byAccount.set(accountId, open);
    stream.onClose(() => {
      open.delete(stream);
      if (open.size === 0 && this.byAccount.get(accountId) === open) {
        this.byAccount.delete(accountId);
      }
    });
    return stream;
  }

  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
    for (const open of [...this.byAccount.values()]) {
      for (const stream of [...open]) stream.close();
    }
  }
}
