import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { boundedText, METRICS, signWebhook } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  AccountEventRepository,
  WebhookDeliveryRepository,
  WebhookEndpointRepository,
  UnitOfWork,
  type DueWebhookDelivery,
  type WebhookAttemptOutcome,
  type WebhookEndpointRow,
} from '@app/database';
import { accountEventView } from '../events/account-event-view';
import { SecretBox } from '../security/secret-box';
import { webhookRetryDelayMs } from './webhook-retry-schedule';
import { WebhookSender, type WebhookResponse } from './webhook-sender';

/** Due deliveries read at a time (then sent one by one, in order). */
const BATCH = 20;

/**
 * Sends an endpoint's due deliveries, one at a time in sequence order, holding the endpoint's
 * lease so that no other pump (in any worker) sends to it meanwhile. A failed delivery waits for
 * its retry (exponential backoff) while the next ones go on, so one event a receiver rejects
 * holds back no other; a receiver failing several in a row is paused until the next retry is
 * due, so a dead one costs a few requests per backoff step, not one per pending delivery.
 */
@Injectable()
export class WebhookPump {
  private readonly logger = new Logger('WebhookPump');
  /** This process's name on the leases it takes. */
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private stopping = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly unitOfWork: UnitOfWork,
    private readonly endpoints: WebhookEndpointRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly events: AccountEventRepository,
    private readonly secretBox: SecretBox,
    private readonly sender: WebhookSender,
  ) {}

  /** Pumps stop after the delivery in flight (shutdown); their leases are given back. */
  stop(): void {
    this.stopping = true;
  }

  /**
   * Sends what is due to the endpoint until nothing is, the endpoint pauses, or the lease's
   * budget is spent (then the sweep hands it on). Returns false when the endpoint was not taken
   * (another pump holds it, or it is disabled or paused).
   */
  async pump(endpointId: string): Promise<boolean> {
    const { leaseMs, timeoutMs } = this.config.webhooks;
    const endpoint = await this.endpoints.takeLease(endpointId, this.owner, leaseMs);
    if (!endpoint) return false;
    // Stop taking new deliveries while one more request still fits in the lease.
    const deadline = Date.now() + leaseMs - 2 * timeoutMs;
    try {
      const run = new PumpRun(endpoint, this.secretsOf(endpoint));
      try {
        while (!this.stopping && Date.now() < deadline) {
          const due = await this.deliveries.due(endpointId, BATCH);
          if (due.length === 0) break;
          for (const delivery of due) {
            if (this.stopping || Date.now() >= deadline) break;
            if (!(await this.deliver(run, delivery))) return true;
          }
          // Before reading what is due again: what was just delivered is no longer due.
          await this.recordSucceeded(run);
        }
        return true;
      } finally {
        await this.recordSucceeded(run);
      }
    } finally {
      await this.endpoints.releaseLease(endpointId, this.owner);
    }
  }

  /** One attempt of one delivery; false when the endpoint is to be left alone for now. */
  private async deliver(run: PumpRun, delivery: DueWebhookDelivery): Promise<boolean> {
    const { id, body } = this.bodyOf(delivery);
    const timestamp = Math.floor(Date.now() / 1000);
    const attemptedAt = new Date();
    const response = await this.sender.send({
      url: run.endpoint.url,
      headers: { ...signWebhook(run.secrets, id, timestamp, body) },
      body,
    });
    const outcome = this.outcomeOf(delivery, attemptedAt, response);
    METRICS.webhookDeliveries.inc({
      outcome: response.ok ? 'succeeded' : outcome.status === 'failed' ? 'failed' : 'retrying',
    });
    if (response.ok) {
      // Recorded with the batch's others (one statement): a crash before that sends it again,
      // which at-least-once allows; a failure is recorded at once, as what follows depends on it.
      run.succeeded.push({ deliveryId: delivery.id, outcome });
      run.consecutiveFailures = 0;
      if (run.failing) await this.endpoints.markAnswering(run.endpoint.id);
      run.failing = false;
      return true;
    }
    await this.recordSucceeded(run);
    await this.deliveries.recordAttempts([{ deliveryId: delivery.id, outcome }]);
    this.logger.debug(
      `Delivery ${delivery.id} to endpoint ${run.endpoint.id} failed: ${response.error}`,
    );
    run.consecutiveFailures += 1;
    run.failing = true;
    const failingSince = await this.endpoints.markFailing(run.endpoint.id, attemptedAt);
    if (attemptedAt.getTime() - failingSince.getTime() >= this.config.webhooks.disableAfterMs) {
      await this.disable(run.endpoint, failingSince);
      return false;
    }
    if (run.consecutiveFailures >= this.config.webhooks.pauseAfterFailures) {
      await this.endpoints.pause(run.endpoint.id, outcome.nextAttemptAt ?? new Date());
      return false;
    }
    return true;
  }

  private async recordSucceeded(run: PumpRun): Promise<void> {
    const recorded = run.succeeded.splice(0);
    await this.deliveries.recordAttempts(recorded);
  }

  private outcomeOf(
    delivery: DueWebhookDelivery,
    attemptedAt: Date,
    response: WebhookResponse,
  ): WebhookAttemptOutcome {
    const base = {
      attemptedAt,
      responseStatus: response.status,
      latencyMs: response.latencyMs,
      error: response.error,
    };
    if (response.ok) return { ...base, status: 'succeeded', nextAttemptAt: null };
    const firstAttempt = delivery.firstAttemptAt ?? attemptedAt;
    const retryingFor = attemptedAt.getTime() - firstAttempt.getTime();
    if (retryingFor >= this.config.webhooks.retryWindowMs) {
      return { ...base, status: 'failed', nextAttemptAt: null };
    }
    const delay = webhookRetryDelayMs(delivery.attempts + 1, this.config.webhooks);
    return { ...base, status: 'pending', nextAttemptAt: new Date(attemptedAt.getTime() + delay) };
  }

  /**
   * Disables the endpoint and tells the account (a `webhook_endpoint.disabled` event, which its
   * other endpoints receive) in one transaction.
   */
  private async disable(endpoint: WebhookEndpointRow, failingSince: Date): Promise<void> {
    const reason =
      `No successful delivery since ${failingSince.toISOString()}: disabled after ` +
      `${Math.round(this.config.webhooks.disableAfterMs / 1000)} s of failures.`;
    await this.unitOfWork.run(async (scope) => {
      if (!(await this.endpoints.disable(endpoint.id, reason, scope))) return;
      await this.events.append(
        endpoint.accountId,
        'webhook_endpoint.disabled',
        {
          endpoint_id: endpoint.id,
          url: endpoint.url,
          reason,
          failing_since: failingSince.toISOString(),
        },
        scope,
      );
    });
    this.logger.warn(`Webhook endpoint ${endpoint.id} disabled: ${boundedText(reason, 300)}`);
  }

  /** The body as sent, and its id (`webhook-id`): the event's, or a ping's own. */
  private bodyOf(delivery: DueWebhookDelivery): { id: string; body: string } {
    if (delivery.event) {
      return {
        id: delivery.event.id,
        body: JSON.stringify(accountEventView(delivery.event, this.events)),
      };
    }
    const pingId = delivery.body?.id;
    return {
      id: typeof pingId === 'string' ? pingId : delivery.id,
      body: JSON.stringify(delivery.body),
    };
  }

  /** The secrets that sign: the current one, and during a rotation's grace the previous one. */
  private secretsOf(endpoint: WebhookEndpointRow): string[] {
    const open = (sealed: WebhookEndpointRow['secret']) =>
      this.secretBox.open(sealed, endpoint.id).toString('utf8');
    const secrets = [open(endpoint.secret)];
    const graceEnds = endpoint.previousSecretExpiresAt;
    if (endpoint.previousSecret && graceEnds && graceEnds > new Date()) {
      secrets.push(open(endpoint.previousSecret));
    }
    return secrets;
  }
}

/** What one pump knows of its endpoint as it goes. */
class PumpRun {
  consecutiveFailures = 0;
  /** Delivered, not yet recorded. */
  readonly succeeded: { deliveryId: string; outcome: WebhookAttemptOutcome }[] = [];
  failing: boolean;

  constructor(
    readonly endpoint: WebhookEndpointRow,
    readonly secrets: string[],
  ) {
    this.failing = endpoint.failingSince !== null;
  }
}
