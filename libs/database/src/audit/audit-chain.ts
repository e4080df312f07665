import { createHash } from 'node:crypto';

/** The hash an account's first entry links to (its `prev_hash`). */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * An audit entry as stored, its fields in the text forms the hash covers: `occurredAt` is UTC
 * with microseconds (`2025-01-02T03:04:05.123456Z`) and `details` is Postgres's jsonb text.
 */
export interface StoredAuditEntry {
  id: string;
  accountId: string;
  seq: string;
  type: string;
  occurredAt: string;
  details: string;
  hash: string;
}

/** What an entry's hash covers: the hash of the entry before it and its own content. */
export type AuditHashInput = Omit<StoredAuditEntry, 'id' | 'hash'> & { prevHash: string };

/** The first entry of an account's chain that does not hold, and why. */
export interface AuditChainBreak {
  accountId: string;
  id: string;
  seq: string;
  problem: string;
}

/**
 * sha256 over the previous hash (hex) and the entry's canonical content, one field a line. It
 * must agree with the insert trigger (`audit_events_link`, migrations 1765200000000 and
 * 1768000000000), which computes it on write; no field can hold a raw newline (jsonb text
 * escapes them), so the joined form is unambiguous.
 */
export function auditEntryHash(entry: AuditHashInput): string {
  const content = [
    entry.prevHash,
    entry.seq,
    entry.accountId,
    entry.type,
    entry.occurredAt,
    entry.details,
  ].join('\n');
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/**
 * Walks chains entry by entry, in (account, seq) order, and names the first broken link of
 * each account: an entry whose hash does not follow from its content and the hash before it
 * (it was edited, or the entry before it was edited and re-hashed, or replaced), or a gap in the
 * numbering (entries deleted). Entries after an account's first break are not judged.
 */
export class AuditChainChecker {
  private accountId: string | null = null;
  private lastSeq = 0n;
  private lastHash = GENESIS_HASH;
  private broken = false;

  check(entry: StoredAuditEntry): AuditChainBreak | null {
    if (entry.accountId !== this.accountId) {
      this.accountId = entry.accountId;
      this.lastSeq = 0n;
      this.lastHash = GENESIS_HASH;
      this.broken = false;
    }
    if (this.broken) return null;
    const problem = this.problemOf(entry);
    this.lastSeq = BigInt(entry.seq);
    this.lastHash = entry.hash;
    if (!problem) return null;
    this.broken = true;
    return { accountId: entry.accountId, id: entry.id, seq: entry.seq, problem };
  }

  private problemOf(entry: StoredAuditEntry): string | null {
    const expectedSeq = this.lastSeq + 1n;
    if (BigInt(entry.seq) !== expectedSeq) {
      return `sequence ${expectedSeq} expected, found ${entry.seq}: entries are missing (deleted)`;
    }
    if (auditEntryHash({ ...entry, prevHash: this.lastHash }) !== entry.hash) {
      return expectedSeq === 1n
        ? 'its content does not match its hash from the genesis hash: the entry was changed'
        : `its content and the hash of entry ${this.lastSeq} do not give its hash: ` +
            'the entry was changed, or one before it was changed and re-hashed';
    }
    return null;
  }
}
