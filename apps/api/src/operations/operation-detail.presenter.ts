import type { OperationEntity, SignedTransactionRecord } from '@app/database';
import {
  operationView,
  type AccountEventView,
  type OperationDetail,
  type OperationView,
} from '@app/domain';
import { presentWebhookDelivery, type WebhookDeliveryView } from '../webhooks/webhook.presenter';

export interface SignedTransactionView {
  tx: string;
  nonce: string | null;
  /** Solana: past this block height an unlanded transaction can never land. */
  last_valid_block_height: string | null;
  fees: Record<string, string> | null;
  signed_at: string;
  /** The version the chain executed (the operation's `tx` once it is confirmed). */
  landed: boolean;
}

/** Everything about one operation: for the console, and for a client investigating one. */
export interface OperationDetailView {
  operation: OperationView;
  /** What was asked: the write's chain intent and its other fields, as stored. */
  request: { intent: Record<string, unknown>; details: Record<string, unknown> };
  /** Every transaction it signed, oldest first: fee bumps and re-signings are versions. */
  transactions: SignedTransactionView[];
  /** Its events, oldest first, as the feed and webhooks carry them. */
  events: AccountEventView[];
  /** The webhook deliveries of those events, oldest first, each with its attempts. */
  deliveries: WebhookDeliveryView[];
  updated_at: string;
  settled_at: string | null;
}

export function presentOperationDetail(detail: OperationDetail): OperationDetailView {
  const { operation } = detail;
  return {
    operation: operationView(operation),
    request: {
      intent: snakeCaseKeys(operation.intent),
      details: snakeCaseKeys(operation.details),
    },
    transactions: detail.transactions.map((record) => presentTransaction(record, operation)),
    events: detail.events,
    deliveries: detail.deliveries.map(presentWebhookDelivery),
    updated_at: detail.updatedAt.toISOString(),
    settled_at: operation.settledAt?.toISOString() ?? null,
  };
}

function presentTransaction(
  record: SignedTransactionRecord,
  operation: OperationEntity,
): SignedTransactionView {
  return {
    tx: record.txHash,
    nonce: record.nonce,
    last_valid_block_height: record.lastValidBlockHeight,
    fees: record.fees,
    signed_at: record.createdAt.toISOString(),
    landed: operation.status === 'confirmed' && operation.txHash === record.txHash,
  };
}

/** The API's field names (top level only: attributes and other client data stay as sent). */
function snakeCaseKeys(value: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
      field as unknown,
    ]),
  );
}
