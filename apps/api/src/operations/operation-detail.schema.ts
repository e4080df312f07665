import { ACCOUNT_EVENT_VIEW } from '../events/event.schema';
import {
  arrayOf,
  boolean,
  dateTime,
  freeObject,
  named,
  nullable,
  strictObject,
  text,
  viewSchema,
} from '../http/docs/schema';
import { DELIVERY_VIEW } from '../webhooks/webhook.schema';
import type { OperationDetailView, SignedTransactionView } from './operation-detail.presenter';
import { OPERATION_VIEW } from './operation.schema';

const SIGNED_TRANSACTION_VIEW = viewSchema<SignedTransactionView>('SignedTransactionView', {
  tx: text,
  nonce: nullable(text),
  last_valid_block_height: nullable(text),
  fees: nullable({ type: 'object', additionalProperties: { type: 'string' } }),
  signed_at: dateTime,
  landed: boolean,
});

export const OPERATION_DETAIL_VIEW = viewSchema<OperationDetailView>('OperationDetailView', {
  operation: OPERATION_VIEW,
  request: strictObject({ intent: freeObject, details: freeObject }),
  transactions: arrayOf(SIGNED_TRANSACTION_VIEW),
  events: arrayOf(ACCOUNT_EVENT_VIEW),
  deliveries: arrayOf(DELIVERY_VIEW),
  updated_at: dateTime,
  settled_at: nullable(dateTime),
});

export const OPERATION_PAGE = named(
  'OperationPage',
  strictObject({ operations: arrayOf(OPERATION_VIEW), next_cursor: nullable(text) }),
);
