import type { WebhookEndpointRow } from '@app/database';
import type {
  IssuedWebhookSecret,
  WebhookDeliveryPage,
  WebhookDeliveryWithAttempts,
  WebhookReplay,
} from '@app/domain';

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

export interface WebhookReplayView {
  /** Deliveries made (pending now). */
  deliveries: number;
  /** The sequence numbers they cover (null when nothing matched, or for a ping). */
  from_sequence: number | null;
  to_sequence: number | null;
  /** True when the limit cut the replay short: replay again from `to_sequence` + 1. */
  truncated: boolean;
}

/** A pause or a rotation's grace shows only while it lasts: null once `now` is past it. */
export function presentWebhookEndpoint(
  endpoint: WebhookEndpointRow,
  now = new Date(),
): WebhookEndpointView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    event_types: endpoint.eventTypes,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    failing_since: iso(endpoint.failingSince),
    paused_until: iso(ahead(endpoint.pausedUntil, now)),
    previous_secret_expires_at: iso(ahead(endpoint.previousSecretExpiresAt, now)),
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}

export function presentIssuedWebhookSecret(issued: IssuedWebhookSecret): WebhookEndpointWithSecret {
  return { ...presentWebhookEndpoint(issued.endpoint), secret: issued.secret };
}

export function presentWebhookDelivery(delivery: WebhookDeliveryWithAttempts): WebhookDeliveryView {
  return {
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    event_sequence: sequence(delivery.eventSeq),
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

export function presentWebhookDeliveryPage(page: WebhookDeliveryPage): WebhookDeliveryPageView {
  return { deliveries: page.deliveries.map(presentWebhookDelivery), next_cursor: page.nextCursor };
}

export function presentWebhookReplay(replay: WebhookReplay): WebhookReplayView {
  return {
    deliveries: replay.deliveries,
    from_sequence: sequence(replay.fromSequence),
    to_sequence: sequence(replay.toSequence),
    truncated: replay.truncated,
  };
}

function ahead(date: Date | null, now: Date): Date | null {
  return date && date > now ? date : null;
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

/** An event sequence number (a bigint in Postgres, read as text) as the API's JSON number. */
function sequence(seq: string | null): number | null {
  return seq === null ? null : Number(seq);
}
