import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppError, newId, WEBHOOK_SECRET_PREFIX } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  WebhookDeliveryRepository,
  WebhookEndpointRepository,
  type WebhookAttemptRow,
  type WebhookDeliveryRow,
  type WebhookDeliveryStatus,
  type WebhookEndpointRow,
  type WebhookReplaySelector,
} from '@app/database';
import { AuditTrail } from '../audit/audit-trail';
import { SecretBox } from '../security/secret-box';
import { WebhookUrlPolicy } from './webhook-url-policy';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Deliveries one replay request may make; a client replays the rest from `to_sequence` + 1. */
export const WEBHOOK_REPLAY_LIMIT = 10_000;

export interface NewWebhookEndpoint {
  url: string;
  eventTypes?: string[];
  description?: string;
  enabled?: boolean;
}

/** An endpoint with its signing secret: the answer to create and rotate only. */
export interface IssuedWebhookSecret {
  endpoint: WebhookEndpointRow;
  /** `whsec_...`: shown once and never again. */
  secret: string;
}

/** A delivery with every attempt made, oldest first. */
export type WebhookDeliveryWithAttempts = WebhookDeliveryRow & { attemptLog: WebhookAttemptRow[] };

export interface WebhookDeliveryPage {
  /** Newest first. */
  deliveries: WebhookDeliveryWithAttempts[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export interface WebhookReplay {
  /** Deliveries made (pending now). */
  deliveries: number;
  /** The event sequence numbers they cover (null when nothing matched, or for a ping). */
  fromSequence: string | null;
  toSequence: string | null;
  /** True when the limit cut the replay short: replay again from `toSequence` + 1. */
  truncated: boolean;
}

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks has it. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** An account's webhook endpoints: the use cases of /webhooks. */
@Injectable()
export class WebhookEndpoints {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly endpoints: WebhookEndpointRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly secretBox: SecretBox,
    private readonly urlPolicy: WebhookUrlPolicy,
    private readonly audit: AuditTrail,
  ) {}

  async create(accountId: string, input: NewWebhookEndpoint): Promise<IssuedWebhookSecret> {
    const url = await this.urlPolicy.check(input.url);
    const id = newId();
    const secret = newWebhookSecret();
    const max = this.config.webhooks.maxEndpointsPerAccount;
    const created = await this.audit.recordWith(
      (scope) =>
        this.endpoints.insertWithinCap(
          {
            id,
            accountId,
            url,
            description: input.description?.trim() ?? '',
            eventTypes: unique(input.eventTypes ?? []),
          },
          input.enabled ?? true,
          this.secretBox.seal(Buffer.from(secret, 'utf8'), id),
          max,
          scope,
        ),
      (endpoint) =>
        endpoint ? { accountId, type: 'webhook_endpoint.created', details: { id, url } } : null,
    );
    if (!created) {
      throw AppError.conflict(
        `This account already has ${max} webhook endpoints, the most it may hold: ` +
          'delete one before adding another.',
      );
    }
    return { endpoint: created, secret };
  }

  async list(accountId: string): Promise<WebhookEndpointRow[]> {
    return this.endpoints.listForAccount(accountId);
  }

  async get(accountId: string, id: string): Promise<WebhookEndpointRow> {
    return this.find(accountId, id);
  }

  async update(
    accountId: string,
    id: string,
    changes: Partial<NewWebhookEndpoint>,
  ): Promise<WebhookEndpointRow> {
    await this.find(accountId, id);
    const url = changes.url === undefined ? undefined : await this.urlPolicy.check(changes.url);
    const updated = await this.endpoints.update(accountId, id, {
      url,
      description: changes.description?.trim(),
      eventTypes: changes.eventTypes && unique(changes.eventTypes),
      enabled: changes.enabled,
    });
    if (!updated) throw notFound();
    return updated;
  }

  async delete(accountId: string, id: string): Promise<void> {
    const deleted = UUID.test(id)
      ? await this.audit.recordWith(
          (scope) => this.endpoints.delete(accountId, id, scope),
          (endpoint) =>
            endpoint
              ? {
                  accountId,
                  type: 'webhook_endpoint.deleted',
                  details: { id, url: endpoint.url },
                }
              : null,
        )
      : null;
    if (!deleted) throw notFound();
  }

  /**
   * A new signing secret, shown once. For `graceSeconds` the previous one signs too (each
   * delivery carries both signatures), so receivers can switch without losing a delivery.
   */
  async rotateSecret(
    accountId: string,
    id: string,
    graceSeconds: number,
  ): Promise<IssuedWebhookSecret> {
    const endpoint = await this.find(accountId, id);
    const secret = newWebhookSecret();
    const previous =
      graceSeconds > 0
        ? {
            // Re-sealed: the current secret may be under an older master key.
            secret: this.secretBox.seal(this.secretBox.open(endpoint.secret, id), id),
            expiresAt: new Date(Date.now() + graceSeconds * 1_000),
          }
        : null;
    const rotated = await this.audit.recordWith(
      (scope) =>
        this.endpoints.rotateSecret(
          accountId,
          id,
          this.secretBox.seal(Buffer.from(secret, 'utf8'), id),
          previous,
          scope,
        ),
      (row) =>
        row
          ? {
              accountId,
              type: 'webhook_endpoint.secret_rotated',
              details: { id, grace_period_seconds: graceSeconds },
            }
          : null,
    );
    if (!rotated) throw notFound();
    return { endpoint: rotated, secret };
  }

  /** Sends a `ping` event through the normal pipeline; answers its delivery's id. */
  async ping(accountId: string, id: string): Promise<string> {
    const endpoint = await this.find(accountId, id);
    if (!endpoint.enabled) throw AppError.conflict('This endpoint is disabled: enable it first.');
    const deliveryId = newId();
    await this.deliveries.insertPing(
      endpoint,
      {
        id: deliveryId,
        sequence: null,
        type: 'ping',
        created_at: new Date().toISOString(),
        data: { endpoint_id: endpoint.id },
      },
      deliveryId,
    );
    return deliveryId;
  }

  async listDeliveries(
    accountId: string,
    id: string,
    query: { status?: WebhookDeliveryStatus; limit: number; cursor?: string },
  ): Promise<WebhookDeliveryPage> {
    const endpoint = await this.find(accountId, id);
    if (query.cursor !== undefined && !UUID.test(query.cursor)) {
      throw AppError.badRequest('cursor must be a next_cursor of this endpoint.');
    }
    const rows = await this.deliveries.page(endpoint.id, query);
    return {
      deliveries: rows,
      nextCursor: rows.length === query.limit ? rows[rows.length - 1].id : null,
    };
  }

  /** New pending deliveries, to this endpoint, of exactly the events selected. */
  async replay(
    accountId: string,
    id: string,
    selector: WebhookReplaySelector,
  ): Promise<WebhookReplay> {
    const endpoint = await this.find(accountId, id);
    if (!endpoint.enabled) throw AppError.conflict('This endpoint is disabled: enable it first.');
    if ('deliveryId' in selector && !UUID.test(selector.deliveryId)) {
      throw AppError.notFound('Delivery not found.');
    }
    const replayed = await this.deliveries.replay(endpoint, selector, WEBHOOK_REPLAY_LIMIT);
    if ('deliveryId' in selector && replayed.count === 0) {
      throw AppError.notFound('Delivery not found.');
    }
    return {
      deliveries: replayed.count,
      fromSequence: replayed.firstSeq,
      toSequence: replayed.lastSeq,
      truncated: !('deliveryId' in selector) && replayed.count === WEBHOOK_REPLAY_LIMIT,
    };
  }

  private async find(accountId: string, id: string): Promise<WebhookEndpointRow> {
    const endpoint = UUID.test(id) ? await this.endpoints.find(accountId, id) : null;
    if (!endpoint) throw notFound();
    return endpoint;
  }
}

function notFound(): AppError {
  return AppError.notFound('Webhook endpoint not found.');
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
