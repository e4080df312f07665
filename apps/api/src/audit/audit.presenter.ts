import type { AuditEntry, AuditEventType } from '@app/database';
import type { AuditPage } from '@app/domain';

export interface AuditEntryView {
  /** The entry's place in the account's chain: 1, 2, 3, ... */
  seq: number;
  type: AuditEventType;
  details: Record<string, unknown>;
  occurred_at: string;
  /**
   * The chain: `hash` covers `prev_hash` (the hash of the entry before, 64 zeros for the first)
   * and the entry; a client may keep the last one seen. Null only where the entry before is
   * missing from the trail (deleted: `npm run audit:verify` names the gap).
   */
  prev_hash: string | null;
  hash: string;
}

export interface AuditPageView {
  entries: AuditEntryView[];
  next_cursor: string | null;
}

export function presentAuditPage(page: AuditPage): AuditPageView {
  return { entries: page.entries.map(presentAuditEntry), next_cursor: page.nextCursor };
}

function presentAuditEntry(entry: AuditEntry): AuditEntryView {
  return {
    seq: Number(entry.seq),
    type: entry.type,
    details: entry.details,
    occurred_at: entry.occurredAt.toISOString(),
    prev_hash: entry.prevHash,
    hash: entry.hash,
  };
}
