import type { WebhookEndpointRow } from '@app/database';
import type { WebhookDeliveryWithAttempts } from '@app/domain';
import {
  presentIssuedWebhookSecret,
  presentWebhookDelivery,
  presentWebhookDeliveryPage,
  presentWebhookEndpoint,
  presentWebhookReplay,
} from './webhook.presenter';

const now = new Date('2026-03-01T12:00:00.000Z');
const sealed = { ciphertext: Buffer.from('sealed'), keyId: 'k1' };

const endpoint: WebhookEndpointRow = {
  id: '3c9a0e5e-1b2f-4c3d-8e4f-5a6b7c8d9e0f',
  accountId: 'a1f7a0c2-3d4e-4b5f-8a6b-7c8d9e0f1a2b',
  url: 'https://hooks.example.com/in',
  description: 'orders',
  eventTypes: ['operation.confirmed'],
  enabled: true,
  disabledReason: null,
  secret: sealed,
  previousSecret: null,
  previousSecretExpiresAt: null,
  failingSince: null,
  pausedUntil: null,
  createdAt: new Date('2026-03-01T09:00:00.000Z'),
  updatedAt: new Date('2026-03-01T09:30:00.000Z'),
};

const delivery: WebhookDeliveryWithAttempts = {
  id: '7d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a',
  endpointId: endpoint.id,
  eventId: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
  eventSeq: '42',
  eventType: 'operation.confirmed',
  status: 'pending',
  attempts: 1,
  nextAttemptAt: new Date('2026-03-01T12:05:00.000Z'),
  firstAttemptAt: new Date('2026-03-01T12:00:00.000Z'),
  lastAttemptAt: new Date('2026-03-01T12:00:00.000Z'),
  lastResponseStatus: 503,
  lastLatencyMs: 87,
  lastError: null,
  createdAt: new Date('2026-03-01T11:59:59.000Z'),
  attemptLog: [
    {
      attempt: 1,
      attemptedAt: new Date('2026-03-01T12:00:00.000Z'),
      responseStatus: 503,
      latencyMs: 87,
      error: null,
    },
  ],
};

describe('webhook presenter', () => {
  it('shows an endpoint under the API names, in order, without its sealed secrets', () => {
    const view = presentWebhookEndpoint(
      { ...endpoint, failingSince: new Date('2026-03-01T11:00:00.000Z') },
      now,
    );
    expect(JSON.stringify(view)).toBe(
      JSON.stringify({
        id: endpoint.id,
        url: 'https://hooks.example.com/in',
        description: 'orders',
        event_types: ['operation.confirmed'],
        enabled: true,
        disabled_reason: null,
        failing_since: '2026-03-01T11:00:00.000Z',
        paused_until: null,
        previous_secret_expires_at: null,
        created_at: '2026-03-01T09:00:00.000Z',
        updated_at: '2026-03-01T09:30:00.000Z',
      }),
    );
  });

  it('shows a pause and a rotation grace while they last, and null once past', () => {
    const later = new Date('2026-03-01T12:10:00.000Z');
    const earlier = new Date('2026-03-01T11:50:00.000Z');
    const lasting = presentWebhookEndpoint(
      { ...endpoint, pausedUntil: later, previousSecret: sealed, previousSecretExpiresAt: later },
      now,
    );
    expect(lasting.paused_until).toBe('2026-03-01T12:10:00.000Z');
    expect(lasting.previous_secret_expires_at).toBe('2026-03-01T12:10:00.000Z');
    const past = presentWebhookEndpoint(
      { ...endpoint, pausedUntil: earlier, previousSecretExpiresAt: earlier },
      now,
    );
    expect(past.paused_until).toBeNull();
    expect(past.previous_secret_expires_at).toBeNull();
    // The very moment it ends counts as past.
    expect(presentWebhookEndpoint({ ...endpoint, pausedUntil: now }, now).paused_until).toBeNull();
  });

  it('adds the new secret, last, to the answers to create and rotate', () => {
    const view = presentIssuedWebhookSecret({ endpoint, secret: 'whsec_abc' });
    expect(Object.keys(view).at(-1)).toBe('secret');
    expect(view.secret).toBe('whsec_abc');
    expect(view.id).toBe(endpoint.id);
  });

  it('shows a delivery with its attempts, the sequence as a number', () => {
    expect(JSON.stringify(presentWebhookDelivery(delivery))).toBe(
      JSON.stringify({
        id: delivery.id,
        endpoint_id: endpoint.id,
        event_id: delivery.eventId,
        event_type: 'operation.confirmed',
        event_sequence: 42,
        status: 'pending',
        attempts: 1,
        next_attempt_at: '2026-03-01T12:05:00.000Z',
        first_attempt_at: '2026-03-01T12:00:00.000Z',
        last_attempt_at: '2026-03-01T12:00:00.000Z',
        last_response_status: 503,
        last_latency_ms: 87,
        last_error: null,
        created_at: '2026-03-01T11:59:59.000Z',
        attempt_log: [
          {
            attempt: 1,
            attempted_at: '2026-03-01T12:00:00.000Z',
            response_status: 503,
            latency_ms: 87,
            error: null,
          },
        ],
      }),
    );
  });

  it('gives a settled delivery no next attempt, and a ping no event', () => {
    const ping = presentWebhookDelivery({
      ...delivery,
      eventId: null,
      eventSeq: null,
      eventType: 'ping',
      status: 'succeeded',
      firstAttemptAt: null,
      lastAttemptAt: null,
      attemptLog: [],
    });
    expect(ping).toMatchObject({
      event_id: null,
      event_sequence: null,
      next_attempt_at: null,
      first_attempt_at: null,
      last_attempt_at: null,
      attempt_log: [],
    });
  });

  it('pages deliveries with next_cursor, null on the last page', () => {
    const page = presentWebhookDeliveryPage({ deliveries: [delivery], nextCursor: delivery.id });
    expect(page.deliveries.map((d) => d.id)).toEqual([delivery.id]);
    expect(page.next_cursor).toBe(delivery.id);
    expect(presentWebhookDeliveryPage({ deliveries: [], nextCursor: null })).toEqual({
      deliveries: [],
      next_cursor: null,
    });
  });

  it('shows a replay with its sequence numbers as numbers, null when nothing matched', () => {
    expect(
      JSON.stringify(
        presentWebhookReplay({
          deliveries: 3,
          fromSequence: '40',
          toSequence: '42',
          truncated: false,
        }),
      ),
    ).toBe(JSON.stringify({ deliveries: 3, from_sequence: 40, to_sequence: 42, truncated: false }));
    expect(
      presentWebhookReplay({
        deliveries: 0,
        fromSequence: null,
        toSequence: null,
        truncated: false,
      }),
    ).toEqual({ deliveries: 0, from_sequence: null, to_sequence: null, truncated: false });
  });
});
