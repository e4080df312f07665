import { OPERATION_STATUSES } from '@app/common';
import { NETWORKS } from '@app/config';
import type { BatchView } from '@app/domain';
import {
  arrayOf,
  dateTime,
  integer,
  nullable,
  oneOf,
  strictObject,
  text,
  viewSchema,
} from '../http/docs/schema';
import type { BatchItemView } from './batch-item.presenter';

export const BATCH_VIEW = viewSchema<BatchView>(
  'BatchView',
  {
    batch_id: { type: 'string', format: 'uuid' },
    kind: oneOf(['token.airdrop', 'nft.airdrop']),
    status: oneOf(['queued', 'running', 'completed', 'completed_with_failures']),
    network: oneOf(NETWORKS),
    asset: text,
    total: integer,
    counts: strictObject({
      queued: integer,
      submitted: integer,
      confirmed: integer,
      failed: integer,
    }),
    created_at: dateTime,
    completed_at: dateTime,
  },
  ['completed_at'],
);

export const BATCH_ITEM_VIEW = viewSchema<BatchItemView>(
  'BatchItemView',
  {
    index: integer,
    recipient: text,
    amount: text,
    status: oneOf(OPERATION_STATUSES.filter((status) => status !== 'signed')),
    operation_id: { type: 'string', format: 'uuid' },
    tx: nullable(text),
    token_id: nullable(text),
    mint_address: nullable(text),
    error: nullable(strictObject({ error: text, message: nullable(text) })),
  },
  ['amount', 'token_id', 'mint_address'],
);

export const BATCH_ITEM_PAGE = strictObject({
  items: arrayOf(BATCH_ITEM_VIEW),
  next_cursor: nullable(text),
});

export const BATCH_PAGE = strictObject({
  batches: arrayOf(BATCH_VIEW),
  next_cursor: nullable(text),
});
