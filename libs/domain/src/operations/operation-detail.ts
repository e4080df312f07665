import { Injectable } from '@nestjs/common';
import { AppError } from '@app/common';
import {
  AccountEventRepository,
  OperationRepository,
  WebhookDeliveryRepository,
  type OperationEntity,
  type SignedTransactionRecord,
} from '@app/database';
import { accountEventView, type AccountEventView } from '../events/account-event-view';
import { webhookDeliveryView, type WebhookDeliveryView } from '../webhooks/webhook-views';
import { operationView, type OperationView } from './operation-view';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** Reads one operation with its history. */
@Injectable()
export class OperationDetailReader {
  constructor(
    private readonly operations: OperationRepository,
    private readonly events: AccountEventRepository,
    private readonly deliveries: WebhookDeliveryRepository,
  ) {}

  async get(accountId: string, id: string): Promise<OperationDetailView> {
    const operation = UUID.test(id) ? await this.operations.findForAccount(accountId, id) : null;
    if (!operation) throw AppError.notFound('No operation with this id in this account.');
    const [transactions, events] = await Promise.all([
      this.operations.listTransactions(id),
      this.events.listForOperation(accountId, id),
    ]);
    const deliveries = await this.deliveries.forEvents(
      accountId,
      events.map((event) => event.id),
    );
    return {
      operation: operationView(operation),
      request: {
        intent: snakeCaseKeys(operation.intent),
        details: snakeCaseKeys(operation.details),
      },
      transactions: transactions.map((record) => transactionView(record, operation)),
      events: events.map((event) => accountEventView(event, this.events)),
      deliveries: deliveries.map(webhookDeliveryView),
      updated_at: operation.updatedAt.toISOString(),
      settled_at: operation.settledAt?.toISOString() ?? null,
    };
  }
}

function transactionView(
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
