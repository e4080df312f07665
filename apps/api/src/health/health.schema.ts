import {
  arrayOf,
  dateTime,
  integer,
  named,
  nullable,
  oneOf,
  strictObject,
  text,
  viewSchema,
} from '../http/docs/schema';
import type { EndpointView, HealthReport } from './health.service';

const check = oneOf(['ok', 'down']);

const ENDPOINT_VIEW = viewSchema<EndpointView>('RpcEndpointView', {
  index: integer,
  url: { type: 'string', description: 'Scheme, host and port only' },
  state: oneOf(['up', 'cooling_down']),
  last_error_at: nullable(dateTime),
});

export const HEALTH_REPORT = viewSchema<HealthReport>('HealthReport', {
  status: check,
  postgres: check,
  redis: check,
  chains: arrayOf(
    strictObject({
      chain: text,
      networks: arrayOf(text),
      status: check,
      endpoints: arrayOf(ENDPOINT_VIEW),
    }),
  ),
});

/** 503: the error envelope, with the report naming what is down. */
export const HEALTH_UNAVAILABLE = named(
  'HealthUnavailable',
  strictObject({
    success: { type: 'boolean', enum: [false] },
    error: text,
    message: text,
    timestamp: dateTime,
    data: HEALTH_REPORT,
  }),
);
