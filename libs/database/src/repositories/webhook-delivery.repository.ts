import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  EVENT_DATA,
  OPERATION_OF_EVENT,
  type StoredAccountEvent,
} from './account-event.repository';

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookAttemptRow {
  attempt: number;
  attemptedAt: Date;
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookDeliveryRow {
  id: string;
  endpointId: string;
  eventId: string | null;
  /** Null for a ping (which is no account event). */
  eventSeq: string | null;
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  firstAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastResponseStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  createdAt: Date;
}

/** A due delivery with what its body is made of: the account event, or a ping's own body. */
export interface DueWebhookDelivery extends WebhookDeliveryRow {
  event: StoredAccountEvent | null;
  body: Record<string, unknown> | null;
}

/** What one attempt came to, and what the delivery becomes. */
export interface WebhookAttemptOutcome {
  attemptedAt: Date;
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  status: WebhookDeliveryStatus;
  /** When still pending: the next attempt. */
  nextAttemptAt: Date | null;
}

/** Which events a replay sends again. */
export type WebhookReplaySelector =
  { deliveryId: string } | { fromSequence: bigint } | { since: Date };

const COLUMNS = `d.id, d.endpoint_id AS "endpointId", d.event_id AS "eventId",
  d.event_seq::text AS "eventSeq", d.event_type AS "eventType", d.status, d.attempts,
  d.next_attempt_at AS "nextAttemptAt", d.first_attempt_at AS "firstAttemptAt",
  d.last_attempt_at AS "lastAttemptAt", d.last_response_status AS "lastResponseStatus",
  d.last_latency_ms AS "lastLatencyMs", d.last_error AS "lastError", d.created_at AS "createdAt"`;

/**
 * Webhook deliveries and their attempts (migration 1765400000000). Deliveries of account events
 * are made by the database's fan-out trigger; this adds pings and replays, feeds the pumps and
 * keeps the log.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A ping: a delivery with a body of its own (no account event). */
  async insertPing(
    endpoint: { id: string; accountId: string },
    body: Record<string, unknown>,
    id: string,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_type, body)
       VALUES ($1, $2, $3, 'ping', $4::jsonb)`,
      [id, endpoint.id, endpoint.accountId, JSON.stringify(body)],
    );
  }

  /**
   * New pending deliveries, to this endpoint, of the events selected: one delivery's event (or
   * ping body) again; or the account's events from a sequence number or a time on that the
   * endpoint's event types take, oldest first, at most `limit`. Returns the sequence numbers
   * covered (null when nothing matched) and how many deliveries were made.
   */
  async replay(
    endpoint: { id: string; accountId: string; eventTypes: string[] },
    selector: WebhookReplaySelector,
    limit: number,
  ): Promise<{ count: number; firstSeq: string | null; lastSeq: string | null }> {
    let rows: { seq: string | null }[];
    if ('deliveryId' in selector) {
      // The same event (or ping body) as the delivery named, as a new delivery.
      rows = await this.dataSource.query(
        `INSERT INTO webhook_deliveries
           (endpoint_id, account_id, event_id, event_seq, event_type, body)
         SELECT d.endpoint_id, d.account_id, d.event_id, d.event_seq, d.event_type, d.body
         FROM webhook_deliveries d
         WHERE d.id = $1 AND d.endpoint_id = $2 AND d.account_id = $3
         RETURNING event_seq::text AS seq`,
        [selector.deliveryId, endpoint.id, endpoint.accountId],
      );
    } else {
      const [condition, value] =
        'fromSequence' in selector
          ? ['e.seq >= $4::bigint', selector.fromSequence.toString()]
          : ['e.created_at >= $4', selector.since];
      // Every selected event of the account in sequence order, as new deliveries to this endpoint.
      rows = await this.dataSource.query(
        `INSERT INTO webhook_deliveries (endpoint_id, account_id, event_id, event_seq, event_type)
         SELECT $1, e.account_id, e.id, e.seq, e.type FROM account_events e
         WHERE e.account_id = $2 AND ${condition}
           AND (cardinality($3::text[]) = 0 OR e.type = ANY ($3::text[]))
         ORDER BY e.seq LIMIT $5
         RETURNING event_seq::text AS seq`,
        [endpoint.id, endpoint.accountId, endpoint.eventTypes, value, limit],
      );
    }
    const seqs = rows
      .map((row) => row.seq)
      .filter((seq): seq is string => seq !== null)
      .map(BigInt)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      count: rows.length,
      firstSeq: seqs.length ? seqs[0].toString() : null,
      lastSeq: seqs.length ? seqs[seqs.length - 1].toString() : null,
    };
  }

  /**
   * The endpoint's due deliveries in the order they are to be sent: first those never tried, then
   * retries; each group by event sequence (pings, which have none, first), then by creation.
   * While a receiver keeps up nothing is a retry, so the order is the sequence's; when some
   * events keep failing, the fresh ones still go first and are not held back behind them.
   */
  async due(endpointId: string, limit: number): Promise<DueWebhookDelivery[]> {
    const rows: (WebhookDeliveryRow & {
      body: Record<string, unknown> | null;
      eventData: Record<string, unknown> | null;
      eventOperationId: string | null;
      eventCreatedAt: Date | null;
      accountId: string;
    })[] = await this.dataSource.query(
      `SELECT ${COLUMNS}, d.body, d.account_id AS "accountId", ${EVENT_DATA} AS "eventData",
         e.operation_id AS "eventOperationId", e.created_at AS "eventCreatedAt"
       FROM webhook_deliveries d
         LEFT JOIN account_events e ON e.account_id = d.account_id AND e.seq = d.event_seq
         ${OPERATION_OF_EVENT}
       WHERE d.endpoint_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= now()
       ORDER BY d.attempts > 0, d.event_seq NULLS FIRST, d.created_at LIMIT $2`,
      [endpointId, limit],
    );
    return rows.map(({ eventData, eventOperationId, eventCreatedAt, accountId, ...row }) => ({
      ...row,
      event:
        row.eventId && eventData && eventCreatedAt
          ? {
              id: row.eventId,
              accountId,
              seq: row.eventSeq!,
              type: row.eventType as StoredAccountEvent['type'],
              operationId: eventOperationId,
              data: eventData,
              createdAt: eventCreatedAt,
            }
          : null,
    }));
  }

  /** Records attempts with their deliveries' new state, in one statement. */
  async recordAttempts(
    attempts: readonly { deliveryId: string; outcome: WebhookAttemptOutcome }[],
  ): Promise<void> {
    if (attempts.length === 0) return;
    const column = <T>(pick: (outcome: WebhookAttemptOutcome) => T) =>
      attempts.map(({ outcome }) => pick(outcome));
    // One statement for a pump's batch: each delivery's counters move on, and the attempt row
    // is keyed by the new count. A delivery deleted meanwhile (its endpoint was) is skipped.
    await this.dataSource.query(
      `WITH v AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::timestamptz[],
           $5::int[], $6::int[], $7::text[])
           AS v(id, status, next_attempt_at, attempted_at, response_status, latency_ms, error)),
       updated AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, status = v.status,
           next_attempt_at = COALESCE(v.next_attempt_at, d.next_attempt_at),
           first_attempt_at = COALESCE(d.first_attempt_at, v.attempted_at),
           last_attempt_at = v.attempted_at, last_response_status = v.response_status,
           last_latency_ms = v.latency_ms, last_error = v.error
         FROM v WHERE d.id = v.id
         RETURNING d.id, d.attempts)
       INSERT INTO webhook_attempts
         (delivery_id, attempt, attempted_at, response_status, latency_ms, error)
       SELECT u.id, u.attempts, v.attempted_at, v.response_status, v.latency_ms, v.error
       FROM updated u JOIN v ON v.id = u.id`,
      [
        attempts.map(({ deliveryId }) => deliveryId),
        column((outcome) => outcome.status),
        column((outcome) => outcome.nextAttemptAt),
        column((outcome) => outcome.attemptedAt),
        column((outcome) => outcome.responseStatus),
        column((outcome) => outcome.latencyMs),
        column((outcome) => outcome.error),
      ],
    );
  }

  /**
   * The endpoint's delivery log, newest first, after the delivery `cursor` (a previous page's
   * last id), optionally of one status; with each delivery's attempts, oldest first.
   */
  async page(
    endpointId: string,
    options: { status?: WebhookDeliveryStatus; limit: number; cursor?: string },
  ): Promise<(WebhookDeliveryRow & { attemptLog: WebhookAttemptRow[] })[]> {
    const deliveries: WebhookDeliveryRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM webhook_deliveries d
       WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.status = $2)
         AND ($3::uuid IS NULL OR (d.created_at, d.id) <
              (SELECT c.created_at, c.id FROM webhook_deliveries c
               WHERE c.id = $3 AND c.endpoint_id = $1))
       ORDER BY d.created_at DESC, d.id DESC LIMIT $4`,
      [endpointId, options.status ?? null, options.cursor ?? null, options.limit],
    );
    return this.withAttempts(deliveries);
  }

  /** The deliveries of these events of the account (an operation's, for its detail), oldest first. */
  async forEvents(
    accountId: string,
    eventIds: readonly string[],
  ): Promise<(WebhookDeliveryRow & { attemptLog: WebhookAttemptRow[] })[]> {
    if (eventIds.length === 0) return [];
    const deliveries: WebhookDeliveryRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM webhook_deliveries d
       WHERE d.account_id = $1 AND d.event_id = ANY ($2::uuid[])
       ORDER BY d.created_at, d.id`,
      [accountId, eventIds],
    );
    return this.withAttempts(deliveries);
  }

  /** Each delivery with its attempts, oldest first. */
  private async withAttempts(
    deliveries: WebhookDeliveryRow[],
  ): Promise<(WebhookDeliveryRow & { attemptLog: WebhookAttemptRow[] })[]> {
    if (deliveries.length === 0) return [];
    const attempts: (WebhookAttemptRow & { deliveryId: string })[] = await this.dataSource.query(
      `SELECT delivery_id AS "deliveryId", attempt, attempted_at AS "attemptedAt",
         response_status AS "responseStatus", latency_ms AS "latencyMs", error
       FROM webhook_attempts WHERE delivery_id = ANY ($1::uuid[]) ORDER BY attempt`,
      [deliveries.map((delivery) => delivery.id)],
    );
    return deliveries.map((delivery) => ({
      ...delivery,
      attemptLog: attempts
        .filter((attempt) => attempt.deliveryId === delivery.id)
        .map(({ deliveryId: _, ...attempt }) => attempt),
    }));
  }
}
