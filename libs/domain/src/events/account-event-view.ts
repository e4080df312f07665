import type { AccountEventRepository, AccountEventType, StoredAccountEvent } from '@app/database';
import { operationView } from '../operations/operation-view';

/**
 * One event as every reader gets it: the feed (GET /events), its live stream (SSE) and webhook
 * bodies. `id` is stable across redeliveries (receivers de-duplicate on it); `sequence` orders an
 * account's events with no gap. It lives in the domain, not among the API's presenters, because
 * it is the public contract both processes render: the API for the feed and its stream, the
 * worker for webhook bodies.
 */
export interface AccountEventView {
  id: string;
  sequence: number;
  type: AccountEventType;
  created_at: string;
  /** An operation event: the operation as GET /operations/{id} showed it then. */
  data: Record<string, unknown>;
}

export function accountEventView(
  event: StoredAccountEvent,
  events: Pick<AccountEventRepository, 'operationFromSnapshot'>,
): AccountEventView {
  return {
    id: event.id,
    sequence: Number(event.seq),
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data: event.operationId ? operationView(events.operationFromSnapshot(event.data)) : event.data,
  };
}
