/**
 * When a reused Idempotency-Key replays its first request. A key is held for the retention
 * window from its first request; within it, the same request (method, path and body, compared
 * by hash) gets the first request's operation, and another request is a 409.
 */
import { createHash } from 'node:crypto';
import { AppError } from '@app/common';

/** What the first request left under a key: its hash and the operation (or batch) it made. */
export interface KeyHolder {
  requestHash: string;
  operationId: string | null;
  batchId?: string | null;
}

/** A stable hash of a request's fingerprint: object keys sorted, so key order does not matter. */
export function hashOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Keys first claimed before this instant are free again for a request made at `requestAt`. */
export function keyWindowStart(requestAt: Date, retentionHours: number): Date {
  return new Date(requestAt.getTime() - retentionHours * 3600_000);
}

/**
 * The operation that answers a request whose key an earlier request holds: the holder's, when
 * the requests are the same. A 409 when they differ, or when no holder is in sight although the
 * claim failed (another request is claiming the key now: the client may retry).
 */
export function replayedOperationId(holder: KeyHolder | null, requestHash: string): string {
  return sameRequest(holder, requestHash).operationId ?? differentRequest();
}

/** As replayedOperationId, for a request that made a batch (an airdrop). */
export function replayedBatchId(holder: KeyHolder | null, requestHash: string): string {
  return sameRequest(holder, requestHash).batchId ?? differentRequest();
}

function sameRequest(holder: KeyHolder | null, requestHash: string): KeyHolder {
  if (!holder) throw new AppError('CONFLICT', 'This Idempotency-Key is being used; retry.');
  if (holder.requestHash !== requestHash) differentRequest();
  return holder;
}

function differentRequest(): never {
  throw AppError.conflict('This Idempotency-Key was used with a different request.');
}
