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
import type { WebhookDeliveryWithAttempts } from '../webhooks/webhook-endpoints.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Everything about one operation: for the console, and for a client investigating one. */
export interface OperationDetail {
  /** The operation, with what was asked (its intent and other fields, as stored). */
  operation: OperationEntity;
  /** Every transaction it signed, oldest first: fee bumps and re-signings are versions. */
  transactions: SignedTransactionRecord[];
  /** Its events, oldest first, as the feed and webhooks carry them. */
  events: AccountEventView[];
  /** The webhook deliveries of those events, oldest first, each with its attempts. */
  deliveries: WebhookDeliveryWithAttempts[];
  /**
   * When it last changed: its row's time, or its latest signing where that came later (a Solana
   * signing leaves the row's time as it was, so that the update is HOT).
   */
  updatedAt: Date;
}

/** Reads one operation with its history. */
@Injectable()
export class OperationDetailReader {
  constructor(
    private readonly operations: OperationRepository,
    private readonly events: AccountEventRepository,
    private readonly deliveries: WebhookDeliveryRepository,
  ) {}

  async get(accountId: string, id: string): Promise<OperationDetail> {
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
      operation,
      transactions,
      // The one view of an event, shared with the feed and the worker's webhook bodies.
      events: events.map((event) => accountEventView(event, this.events)),
      deliveries,
      updatedAt: lastChange(operation, transactions),
    };
  }
}

function lastChange(operation: OperationEntity, transactions: SignedTransactionRecord[]): Date {
  const latestSigning = transactions.at(-1)?.createdAt;
  return latestSigning && latestSigning > operation.updatedAt ? latestSigning : operation.updatedAt;
}
