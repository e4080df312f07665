import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { boundedText } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AccountBacklog, type LineEntry, type OperationJobData } from '@app/queue';
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

  /** A slot for the job of `queueName`, or (none free) its place in its account's line. */
  async take(job: OperationJobData, queueName: string): Promise<SlotDecision> {
    const slot = slotOf(job);
    if (!slot) return { run: true }; // a job of an older release: not counted
    const attempt = await this.backlog.takeSlot(
      slot.network,
      slot.accountId,
      slot.operationId,
      this.config.scheduling.maxInFlight,
      this.holdMs(),
      queueName,
    );
    const decision = decideSlot(attempt, this.config.scheduling);
    if (decision.run) this.held.set(slot.operationId, slot);
    return decision;
  }

  /**
   * After a run; `completed`: the operation is done and leaves its account's backlog. Returns
   * the job first in the account's line, for the caller to bring back now.
   */
  async release(job: OperationJobData, completed: boolean): Promise<LineEntry | null> {
    const slot = slotOf(job);
    if (!slot) return null;
    this.held.delete(slot.operationId);
    try {
      return await this.backlog.releaseSlot(
        slot.network,
        slot.accountId,
        slot.operationId,
        completed,
      );
    } catch (error) {
      // The slot lapses by itself and the reconciler prunes the backlog: not the job's failure.
      this.logger.warn(`Slot of ${slot.operationId} not released: ${boundedText(error, 300)}`);
      return null;
    }
  }

  /** The next job in the line of the job's account (the one handed out could not come back). */
  nextInLine(job: OperationJobData): Promise<LineEntry | null> {
    const slot = slotOf(job);
    return slot ? this.backlog.nextInLine(slot.network, slot.accountId) : Promise.resolve(null);
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
