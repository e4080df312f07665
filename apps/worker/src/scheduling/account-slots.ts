import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { boundedText } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AccountBacklog, type OperationJobData } from '@app/queue';
import { decideSlot, slotOf, type Slot, type SlotDecision } from './slot-decision';

/**
 * The per-account in-flight cap (ACCOUNT_MAX_IN_FLIGHT), across every worker of a network: a
 * job runs only while it holds one of its account's slots. The slots this process holds are
 * renewed while their jobs run, so those of a killed worker lapse after JOB_LOCK_MS.
 */
@Injectable()
export class AccountSlots implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AccountSlots.name);
  private readonly held = new Map<string, Slot>();
  private renewal?: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly backlog: AccountBacklog,
  ) {}

  onApplicationBootstrap(): void {
    this.renewal = setInterval(() => void this.renew(), Math.ceil(this.holdMs() / 3));
    this.renewal.unref();
  }

  async take(job: OperationJobData): Promise<SlotDecision> {
    const slot = slotOf(job);
    if (!slot) return { run: true }; // a job of an older release: not counted
    const attempt = await this.backlog.takeSlot(
      slot.network,
      slot.accountId,
      slot.operationId,
      this.config.scheduling.maxInFlight,
      this.holdMs(),
    );
    const decision = decideSlot(attempt, this.config.scheduling);
    if (decision.run) this.held.set(slot.operationId, slot);
    return decision;
  }

  /** After a run; `completed`: the operation is done and leaves its account's backlog. */
  async release(job: OperationJobData, completed: boolean): Promise<void> {
    const slot = slotOf(job);
    if (!slot) return;
    this.held.delete(slot.operationId);
    try {
      await this.backlog.releaseSlot(slot.network, slot.accountId, slot.operationId, completed);
    } catch (error) {
      // The slot lapses by itself and the reconciler prunes the backlog: not the job's failure.
      this.logger.warn(`Slot of ${slot.operationId} not released: ${boundedText(error, 300)}`);
    }
  }

  private async renew(): Promise<void> {
    try {
      await this.backlog.renewSlots([...this.held.values()], this.holdMs());
    } catch (error) {
      this.logger.warn(`In-flight slots not renewed: ${boundedText(error, 300)}`);
    }
  }

  private holdMs(): number {
    return this.config.worker.jobLockMs;
  }

  onApplicationShutdown(): void {
    clearInterval(this.renewal);
  }
}
