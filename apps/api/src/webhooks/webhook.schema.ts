import {
  arrayOf,
  boolean,
  dateTime,
  integer,
  nullable,
  oneOf,
  text,
  viewSchema,
} from '../http/docs/schema';
import type {
  WebhookAttemptView,
  WebhookDeliveryPageView,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
  WebhookReplayView,
} from './webhook.presenter';

const endpointFields = {
  id: text,
  url: text,
  description: text,
  event_types: { ...arrayOf(text), description: 'Empty: every event type' },
  enabled: boolean,
  disabled_reason: nullable(text),
  failing_since: nullable(dateTime),
  paused_until: nullable(dateTime),
  previous_secret_expires_at: nullable(dateTime),
  created_at: dateTime,
  updated_at: dateTime,
};

export const WEBHOOK_ENDPOINT_VIEW = viewSchema<WebhookEndpointView>(
  'WebhookEndpointView',
  endpointFields,
);

export const WEBHOOK_ENDPOINT_WITH_SECRET = viewSchema<WebhookEndpointWithSecret>(
  'WebhookEndpointWithSecret',
  { ...endpointFields, secret: { type: 'string', description: '`whsec_...`, shown only here' } },
);

const ATTEMPT_VIEW = viewSchema<WebhookAttemptView>('WebhookAttemptView', {
  attempt: integer,
  attempted_at: dateTime,
  response_status: nullable(integer),
  latency_ms: integer,
  error: nullable(text),
});

export const DELIVERY_VIEW = viewSchema<WebhookDeliveryView>('WebhookDeliveryView', {
  id: text,
  endpoint_id: text,
  event_id: nullable(text),
  event_type: text,
  event_sequence: nullable(integer),
  status: oneOf(['pending', 'succeeded', 'failed']),
  attempts: integer,
  next_attempt_at: nullable(dateTime),
  first_attempt_at: nullable(dateTime),
  last_attempt_at: nullable(dateTime),
  last_response_status: nullable(integer),
  last_latency_ms: nullable(integer),
  last_error: nullable(text),
  created_at: dateTime,
  attempt_log: arrayOf(ATTEMPT_VIEW),
});

export const WEBHOOK_DELIVERY_PAGE = viewSchema<WebhookDeliveryPageView>('WebhookDeliveryPage', {
  deliveries: arrayOf(DELIVERY_VIEW),
  next_cursor: nullable(text),
});

export const WEBHOOK_REPLAY_VIEW = viewSchema<WebhookReplayView>('WebhookReplayView', {
  deliveries: integer,
  from_sequence: nullable(integer),
  to_sequence: nullable(integer),
  truncated: boolean,
});
