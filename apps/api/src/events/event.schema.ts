import { ACCOUNT_EVENT_TYPES } from '@app/database';
import type { AccountEventPage, AccountEventView } from '@app/domain';
import {
  arrayOf,
  boolean,
  dateTime,
  freeObject,
  integer,
  oneOf,
  text,
  viewSchema,
} from '../http/docs/schema';

export const ACCOUNT_EVENT_VIEW = viewSchema<AccountEventView>('AccountEventView', {
  id: text,
  sequence: integer,
  type: oneOf(ACCOUNT_EVENT_TYPES),
  created_at: dateTime,
  data: { ...freeObject, description: 'An operation event: the operation as it was then' },
});

export const ACCOUNT_EVENT_PAGE = viewSchema<AccountEventPage>('AccountEventPage', {
  events: arrayOf(ACCOUNT_EVENT_VIEW),
  next_after: integer,
  has_more: boolean,
});
