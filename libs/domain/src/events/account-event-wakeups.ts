import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ACCOUNT_EVENTS_CHANNEL, PgNotifications } from '@app/database';

/** Told that an account may have new events: re-read Postgres after the last one seen. */
export type EventWakeup = () => void;

/**
 * The account_events notifications of this process fanned out to its readers by account: one
 * LISTEN (PgNotifications' connection) however many live streams are open, each woken only for
 * its own account. After the listening connection was lost and made again, every reader is woken,
 * since notifications sent meanwhile are gone. A wakeup is a hint; Postgres stays the truth.
 */
@Injectable()
export class AccountEventWakeups implements OnApplicationShutdown {
  private readonly logger = new Logger(AccountEventWakeups.name);
  private readonly readers = new Map<string, Set<EventWakeup>>();
  private listening?: Promise<() => void>;

  constructor(private readonly notifications: PgNotifications) {}

  /**
   * Calls `wakeup` whenever the account's events may have changed; returns the unsubscribe
   * function. Resolves once this process is listening (or trying to again after a failure), so
   * a read made after it misses no notification.
   */
  async subscribe(accountId: string, wakeup: EventWakeup): Promise<() => void> {
    let accountReaders = this.readers.get(accountId);
    if (!accountReaders) {
      accountReaders = new Set();
      this.readers.set(accountId, accountReaders);
    }
    accountReaders.add(wakeup);
    const unsubscribe = (): void => {
      accountReaders.delete(wakeup);
      if (accountReaders.size === 0 && this.readers.get(accountId) === accountReaders) {
        this.readers.delete(accountId);
      }
    };
    this.listening ??= this.notifications.listen(ACCOUNT_EVENTS_CHANNEL, (payload) =>
      this.wake(payload),
    );
    try {
      await this.listening;
    } catch (error) {
      // The next subscriber tries again.
      this.listening = undefined;
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  /** `accountId` null: the listening connection was made again, everyone re-reads. */
  private wake(accountId: string | null): void {
    const woken =
      accountId === null ? [...this.readers.values()] : [this.readers.get(accountId) ?? []];
    for (const readers of woken) {
      for (const wakeup of readers) {
        try {
          wakeup();
        } catch (error) {
          this.logger.warn(`An event reader failed on wakeup: ${String(error)}`);
        }
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const unlisten = await this.listening?.catch(() => undefined);
    unlisten?.();
    this.readers.clear();
  }
}
