import { Injectable } from '@nestjs/common';
import { AccountEventRepository } from '@app/database';
import { accountEventView, type AccountEventView } from './account-event-view';

/** A page of the feed (GET /events). */
export interface AccountEventPage {
  /** Oldest first, each with a sequence above the `after` asked for. */
  events: AccountEventView[];
  /** The `after` of the next page: the last event's sequence, or the `after` asked for if none. */
  next_after: number;
  /** Whether more events were already there past this page (ask again at once). */
  has_more: boolean;
}

/**
 * Reads an account's events in sequence order: what a client that was away pages through, and
 * what a live stream reads after the last event it sent. Sequence numbers are per account,
 * gap-free and in commit order, so `after` is all a reader needs to keep.
 */
@Injectable()
export class AccountEventFeed {
  constructor(private readonly events: AccountEventRepository) {}

  async page(accountId: string, after: number, limit: number): Promise<AccountEventPage> {
    // One more than asked tells whether another page follows, without a count.
    const stored = await this.events.listAfter(accountId, BigInt(after), limit + 1);
    const events = stored.slice(0, limit).map((event) => accountEventView(event, this.events));
    return {
      events,
      next_after: events.at(-1)?.sequence ?? after,
      has_more: stored.length > limit,
    };
  }

  /** The account's last sequence number (0 before its first event): "from now on" starts here. */
  async lastSequence(accountId: string): Promise<number> {
    return Number(await this.events.lastSeq(accountId));
  }
}
