import type { WebhookDeliveryRow, WebhookAttemptRow, WebhookEndpointRow } from '@app/database';

export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string;
  /** Empty: every event type. */
  event_types: string[];
  enabled: boolean;
  /** Why the service disabled it (null when enabled, or disabled by the account). */
  disabled_reason: string | null;
  /** Since when deliveries fail with no success in between (null while it answers). */
  failing_since: string | null;
  /** Deliveries wait until then after repeated failures (null when not paused). */
  paused_until: string | null;
  /** During a secret rotation's grace: when the previous secret stops signing. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An endpoint with its signing secret: in the answers to create and rotate only. */
export interface WebhookEndpointWithSecret extends WebhookEndpointView {
  secret: string;
}

export interface WebhookAttemptView {
  attempt: number;
  attempted_at: string;
  response_status: number | null;
  latency_ms: number;
  error: string | null;
}

export interface WebhookDeliveryView {
  id: string;
  endpoint_id: string;
  /** The account event delivered (the body's and `webhook-id`'s id); null for a ping. */
  event_id: string | null;
  event_type: string;
  event_sequence: number | null;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  /** While pending: when the next attempt is due. */
  next_attempt_at: string | null;
  first_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  created_at: string;
  attempt_log: WebhookAttemptView[];
}

export interface WebhookDeliveryPageView {
  deliveries: WebhookDeliveryView[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

export function webhookEndpointView(
  endpoint: WebhookEndpointRow,
  now = new Date(),
): WebhookEndpointView {
  const graceEnds = endpoint.previousSecretExpiresAt;
  const paused = endpoint.pausedUntil;
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    event_types: endpoint.eventTypes,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    failing_since: iso(endpoint.failingSince),
    paused_until: paused && paused > now ? paused.toISOString() : null,
    previous_secret_expires_at: graceEnds && graceEnds > now ? graceEnds.toISOString() : null,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}

export function webhookDeliveryView(
  delivery: WebhookDeliveryRow & { attemptLog: WebhookAttemptRow[] },
): WebhookDeliveryView {
  return {
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    event_sequence: delivery.eventSeq === null ? null : Number(delivery.eventSeq),
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
    first_attempt_at: iso(delivery.firstAttemptAt),
    last_attempt_at: iso(delivery.lastAttemptAt),
    last_response_status: delivery.lastResponseStatus,
    last_latency_ms: delivery.lastLatencyMs,
    last_error: delivery.lastError,
    created_at: delivery.createdAt.toISOString(),
    attempt_log: delivery.attemptLog.map((attempt) => ({
      attempt: attempt.attempt,
      attempted_at: attempt.attemptedAt.toISOString(),
      response_status: attempt.responseStatus,
      latency_ms: attempt.latencyMs,
      error: attempt.error,
    })),
  };
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
