import {
  arrayOf,
  dateTime,
  integer,
  nullable,
  number,
  oneOf,
  strictObject,
  text,
  viewSchema,
} from '../http/docs/schema';
import type { UsageView } from './usage.presenter';

const counts = { confirmed: integer, failed: integer, pending: integer };
const milliseconds = nullable(number);

export const USAGE_VIEW = viewSchema<UsageView>('UsageView', {
  window: oneOf(['day', 'week']),
  network: nullable(text),
  from: dateTime,
  to: dateTime,
  hours: arrayOf(strictObject({ hour: dateTime, ...counts })),
  totals: strictObject(counts),
  confirmation_latency_ms: strictObject({
    count: integer,
    p50: milliseconds,
    p90: milliseconds,
    p99: milliseconds,
  }),
  pending_now: strictObject({
    total: integer,
    by_network: {
      type: 'object',
      description: 'Network name to its pending count; networks without any are left out',
      additionalProperties: integer,
    },
  }),
});
