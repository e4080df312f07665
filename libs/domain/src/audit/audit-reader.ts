import { Injectable } from '@nestjs/common';
import { AuditEventRepository, type AuditEntry, type AuditEventType } from '@app/database';

export interface AuditEntryView {
  /** The entry's place in the account's chain: 1, 2, 3, ... */
  seq: number;
  type: AuditEventType;
  details: Record<string, unknown>;
  occurred_at: string;
  /** The chain: `hash` covers `prev_hash` and the entry; a client may keep the last one seen. */
  prev_hash: string;
  hash: string;
}

export interface AuditPageView {
  entries: AuditEntryView[];
  next_cursor: string | null;
}

/** Reads an account's own audit trail, newest first. */
@Injectable()
export class AuditReader {
  constructor(private readonly events: AuditEventRepository) {}

  /** `cursor` is a previous page's `next_cursor` (the seq its last entry had). */
  async page(accountId: string, limit: number, cursor?: string): Promise<AuditPageView> {
    const page = await this.events.listForAccount(accountId, limit, cursor);
    return { entries: page.entries.map(entryView), next_cursor: page.nextBeforeSeq };
  }
}

function entryView(entry: AuditEntry): AuditEntryView {
  return {
    seq: Number(entry.seq),
    type: entry.type,
    details: entry.details,
    occurred_at: entry.occurredAt.toISOString(),
    prev_hash: entry.prevHash,
    hash: entry.hash,
  };
}
