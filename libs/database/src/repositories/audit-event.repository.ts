import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GENESIS_HASH, type StoredAuditEntry } from '../audit/audit-chain';
import { managerOf, outsideTransaction, type WorkScope } from '../unit-of-work';

/**
 * What the audit log records. `managed_key.used` is written by the database itself (a trigger
 * on operation_transactions), the others by the account and API key use cases.
 */
export type AuditEventType =
  | 'account.created'
  | 'login.succeeded'
  | 'login.failed'
  | 'session.ended'
  | 'api_key.issued'
  | 'api_key.revoked'
  | 'webhook_endpoint.created'
  | 'webhook_endpoint.deleted'
  | 'webhook_endpoint.secret_rotated'
  | 'managed_key.used'
  | 'managed_key.rewrapped'
  | 'signing_policy.updated'
  | 'signing_policy.violated';

/** Identifiers and facts only: never a key, a password, a token or any other secret. */
export type AuditDetails = Record<string, string | number | boolean | null>;

export interface AuditEventInput {
  accountId: string;
  type: AuditEventType;
  details?: AuditDetails;
}

export interface AuditEntry {
  seq: string;
  type: AuditEventType;
  details: Record<string, unknown>;
  occurredAt: Date;
  /** The hash of the entry before it (GENESIS_HASH for the first); null where it is missing. */
  prevHash: string | null;
  hash: string;
}

/**
 * The text forms the hash covers (see audit-chain.ts and the insert trigger). Queries selecting
 * them order by `e.seq`, qualified: a bare `seq` would sort by this text alias (1, 10, 2, ...).
 */
const STORED_COLUMNS = `e.id::text AS "id", e.account_id::text AS "accountId", e.seq::text AS "seq",
  e.type, to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "occurredAt",
  e.details::text AS "details", encode(e.hash, 'hex') AS "hash"`;

/**
 * An entry's link: the hash of the entry before it, read from that entry (migration
 * 1768000000000 stores no copy), or the genesis hash for the first.
 */
const PREVIOUS_HASH = `CASE WHEN e.seq = 1 THEN '${GENESIS_HASH}' ELSE (
    SELECT encode(p.hash, 'hex') FROM audit_events p
    WHERE p.account_id = e.account_id AND p.seq = e.seq - 1) END`;

/**
 * The append-only audit log. An insert names only the account, the type and the details: the
 * database numbers, stamps and links the entry (migration 1765200000000), and refuses any
 * update or delete.
 */
@Injectable()
export class AuditEventRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records an event; pass the scope of the transaction making the change it records. */
  async record(
    event: AuditEventInput,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<void> {
    await managerOf(scope).query(
      `INSERT INTO audit_events (account_id, type, details) VALUES ($1, $2, $3::jsonb)`,
      [event.accountId, event.type, JSON.stringify(event.details ?? {})],
    );
  }

  /** Newest first; `beforeSeq` (the last seq of the previous page) pages back in time. */
  async listForAccount(
    accountId: string,
    limit: number,
    beforeSeq?: string,
  ): Promise<{ entries: AuditEntry[]; nextBeforeSeq: string | null }> {
    const rows: AuditEntry[] = await this.dataSource.query(
      `SELECT e.seq::text AS "seq", e.type, e.details, e.occurred_at AS "occurredAt",
         ${PREVIOUS_HASH} AS "prevHash", encode(e.hash, 'hex') AS "hash"
       FROM audit_events e
       WHERE e.account_id = $1 AND ($2::bigint IS NULL OR e.seq < $2::bigint)
       ORDER BY e.seq DESC LIMIT $3`,
      [accountId, beforeSeq ?? null, limit + 1],
    );
    const entries = rows.slice(0, limit);
    const last = entries[entries.length - 1];
    return { entries, nextBeforeSeq: rows.length > limit && last ? last.seq : null };
  }

  /**
   * Every entry, in (account, seq) order, read a batch at a time along the unique index, so a
   * log of any size is walked in constant memory.
   */
  async *walk(batchSize = 1000): AsyncGenerator<StoredAuditEntry> {
    let after: { accountId: string; seq: string } | null = null;
    for (;;) {
      const rows: StoredAuditEntry[] = await this.dataSource.query(
        `SELECT ${STORED_COLUMNS} FROM audit_events e
         WHERE $1::uuid IS NULL OR (e.account_id, e.seq) > ($1::uuid, $2::bigint)
         ORDER BY e.account_id, e.seq LIMIT $3`,
        [after?.accountId ?? null, after?.seq ?? null, batchSize],
      );
      yield* rows;
      const last = rows[rows.length - 1];
      if (!last || rows.length < batchSize) return;
      after = { accountId: last.accountId, seq: last.seq };
    }
  }
}
