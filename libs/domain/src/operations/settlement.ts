import type { ErrorCode, OperationStatus } from '@app/common';
import type { OperationEntity } from '@app/database';
import { operationView, type OperationView } from './operation-view';

/** What answering a write needs of its operation: its view, and why it failed if it did. */
export interface Settlement {
  status: OperationStatus;
  view: OperationView;
  error: { code: ErrorCode; message: string } | null;
}

export function settlementOf(operation: OperationEntity): Settlement {
  return {
    status: operation.status,
    view: operationView(operation),
    error:
      operation.status === 'failed'
        ? {
            code: operation.errorCode ?? 'INTERNAL',
            message: operation.errorMessage ?? 'The operation failed.',
          }
        : null,
  };
}

/**
 * A message of the settlement channel: the operation's id, and its settlement when the sender
 * is the one that settled it, so that the API instance waiting for it answers without reading
 * Postgres again. Without it, the waiter reads Postgres.
 */
export function settledMessage(id: string, settlement?: Settlement): string {
  return JSON.stringify({ id, settlement });
}

export function readSettledMessage(
  message: string,
): { id: string; settlement?: Settlement } | null {
  try {
    const parsed = JSON.parse(message) as { id?: unknown; settlement?: Settlement };
    return typeof parsed.id === 'string' ? { id: parsed.id, settlement: parsed.settlement } : null;
  } catch {
    return null;
  }
}
