import { OPERATION_KINDS, OPERATION_STATUSES } from '@app/common';
import { NETWORKS } from '@app/config';
import { dateTime, integer, named, nullable, oneOf, strictObject, text } from '../http/docs/schema';

/**
 * The `data` of every write and of GET /operations/{id} (libs/domain `operationView`): the
 * fields every operation has, and those of its kind (see the contract), absent on other kinds.
 */
export const OPERATION_VIEW = named('OperationView', {
  ...strictObject(
    {
      operation_id: { type: 'string', format: 'uuid' },
      kind: oneOf(OPERATION_KINDS),
      status: oneOf(OPERATION_STATUSES),
      network: oneOf(NETWORKS),
      /** Null until the operation has signed a transaction. */
      tx: nullable(text),
      created_at: dateTime,
      mint_address: nullable(text),
      metadata_uri: nullable(text),
      decimals: integer,
      amount: text,
      owner: nullable(text),
      recipient: text,
      collection: text,
      token_id: nullable(text),
      from: text,
      retries: strictObject({
        attempts: integer,
        last_error: nullable(text),
        since: nullable(dateTime),
      }),
      error: strictObject({ error: text, message: nullable(text) }),
    },
    [
      'mint_address',
      'metadata_uri',
      'decimals',
      'amount',
      'owner',
      'recipient',
      'collection',
      'token_id',
      'from',
      'retries',
      'error',
    ],
  ),
  description:
    'A write and its outcome. `retries` while it is retried after faults; `error` once failed.',
});
