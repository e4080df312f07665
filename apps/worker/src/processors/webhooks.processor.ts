import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import type { RedisConnection } from '@app/queue';
import { ConnectionWatchdog } from '../connection-watchdog';
import { boundedText, LogContext } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { PgNotifications, WebhookEndpointRepository } from '@app/database';
import { WebhookPump } from '@app/domain';
import {
  PUMP_WEBHOOK_ENDPOINT,
  WEBHOOK_QUEUE,
  WebhookQueue,
  closeWorker,
  type WebhookPumpJobData,
  redisClient,
} from '@app/queue';

/** The Postgres channel a new delivery notifies, with its endpoint id (migration 1765400000000). */
const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';
/** Endpoints one sweep asks pumps for, at most. */
const SWEEP_LIMIT = 1_000;

/**
 * Webhook deliveries in the worker: pumps run from their own queue (WEBHOOK_CONCURRENCY slots,
 * apart from the operations'). A pump is asked for when Postgres notifies a new delivery, and by
 * a sweep every WEBHOOK_SWEEP_INTERVAL_MS over endpoints with due deliveries (retries coming due,
 * paused endpoints resuming, and whatever a lost notification, a lost job, a Redis flush or a
 * killed worker left behind: Postgres is the truth).
 */
@Injectable()
export class WebhooksProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhooksProcessor');
  private worker?: Worker<WebhookPumpJobData>;
  private unlisten?: () => void;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  /** Endpoints pumped in this process, and whether news came for them meanwhile. */
  private readonly pumping = new Map<string, { again: boolean }>();
  private connection?: RedisConnection;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly pump: WebhookPump,
    private readonly queue: WebhookQueue,
    private readonly endpoints: WebhookEndpointRepository,
    private readonly notifications: PgNotifications,
    private readonly watchdog: ConnectionWatchdog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Built here rather than by @nestjs/bullmq's @Processor: a decorator fixes a Worker's options
    // when the class is declared, and these come from the typed config at boot (the lock is the
    // endpoint lease, WEBHOOK_LEASE_MS; the slots WEBHOOK_CONCURRENCY).
    this.worker = new Worker<WebhookPumpJobData>(
      WEBHOOK_QUEUE,
      (job) => LogContext.run({ jobId: job.id, queue: job.queueName }, () => this.handle(job)),
      {
        // BullMQ leaves a connection it was given open: closed by us after the worker.
        connection: (this.connection = redisClient(this.config, {
          maxRetriesPerRequest: null,
        })),
        prefix: this.config.queue.prefix,
        concurrency: this.config.webhooks.concurrency,
        // A killed worker's job stays active (and further adds of its id are no-ops) until its
        // lock lapses; then it is run again. Lapsing with the endpoint's lease keeps the pause
        // after a crash to one lease.
        lockDuration: this.config.webhooks.leaseMs,
        stalledInterval: Math.max(250, Math.floor(this.config.webhooks.leaseMs / 2)),
        maxStalledCount: 1_000,
      },
    );
    this.worker.on('error', (error) =>
      this.logger.error(`Webhook queue: ${boundedText(error.message, 500)}`),
    );
    this.watchdog.watch('webhook queue', this.connection);
    this.unlisten = await this.notifications.listen(WEBHOOK_DELIVERIES_CHANNEL, (endpointId) => {
      if (endpointId === null) return this.sweep();
      this.request(endpointId);
    });
    this.sweepTimer = setInterval(() => this.sweep(), this.config.webhooks.sweepIntervalMs);
    this.sweep();
  }

  private async handle(job: Job<WebhookPumpJobData>): Promise<void> {
    if (job.name !== PUMP_WEBHOOK_ENDPOINT) throw new Error(`No handler for job ${job.name}`);
    const { endpointId } = job.data;
    const state = { again: true };
    this.pumping.set(endpointId, state);
    try {
      // News that came while pumping (a delivery committed after the last read) is sent now:
      // a new job for this endpoint would be a no-op while this one is active.
      while (state.again) {
        state.again = false;
        if (!(await this.pump.pump(endpointId))) break;
      }
    } finally {
      this.pumping.delete(endpointId);
    }
  }

  private request(endpointId: string): void {
    const active = this.pumping.get(endpointId);
    if (active) {
      active.again = true;
      return;
    }
    this.queue
      .requestPump(endpointId)
      .catch((error: unknown) =>
        this.logger.warn(`Webhook pump not queued (the sweep retries): ${boundedText(error, 300)}`),
      );
  }

  private sweep(): void {
    if (this.sweeping) return;
    this.sweeping = this.endpoints
      .listDue(SWEEP_LIMIT)
      .then((ids) => ids.forEach((id) => this.request(id)))
      .catch((error: unknown) =>
        this.logger.warn(`Webhook sweep failed: ${boundedText(error, 300)}`),
      )
      .finally(() => (this.sweeping = undefined));
  }

  /** On SIGTERM: pumps end after the delivery in flight and give their endpoints back. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.unlisten?.();
    this.pump.stop();
    if (this.worker) await closeWorker(this.worker, false, this.config.queue.redisTimeoutMs);
    await this.sweeping;
    this.connection?.disconnect();
  }
}
