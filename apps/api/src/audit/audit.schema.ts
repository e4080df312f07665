import {
  arrayOf,
  boolean,
  dateTime,
  integer,
  nullable,
  number,
  text,
  viewSchema,
} from '../http/docs/schema';
import type { AuditEntryView, AuditPageView } from './audit.presenter';

const AUDIT_ENTRY_VIEW = viewSchema<AuditEntryView>('AuditEntryView', {
  seq: integer,
  type: text,
  details: {
    type: 'object',
    additionalProperties: { oneOf: [nullable(text), number, boolean] },
    description: 'Identifiers and facts only',
  },
  occurred_at: dateTime,
  prev_hash: nullable(text),
  hash: text,
});

export const AUDIT_PAGE_VIEW = viewSchema<AuditPageView>('AuditPageView', {
  entries: arrayOf(AUDIT_ENTRY_VIEW),
  next_cursor: nullable(text),
});
