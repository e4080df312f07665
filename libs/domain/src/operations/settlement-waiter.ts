import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { OperationRepository, type OperationEntity } from '@app/database';
import { SettlementChannel } from '@app/queue';

const POLL_MS = 1_000;

/**
 * Waits for an operation to settle: woken by the settlement channel, and polling Postgres as a
 * backstop (a pub/sub message can be lost). Postgres always has the last word.
 */
@Injectable()
export class SettlementWaiter implements OnApplicationShutdown {
  private readonly waiters = new Map<string, Set<() => void>>();
  private unsubscribe?: Promise<() => void>;

  constructor(
    private readonly operations: OperationRepository,
    private readonly channel: SettlementChannel,
  ) {}

  /**
   * The operation once settled, or as it stands when the time is up. `fresh`: the caller just
   * wrote it, so the first read is skipped and the wait starts at once.
   */
  async wait(id: string, timeoutMs: number, fresh = false): Promise<OperationEntity> {
    this.unsubscribe ??= this.channel.listen((settledId) => {
      for (const wake of this.waiters.get(settledId) ?? []) wake();
    });
    await this.unsubscribe;
    const deadline = Date.now() + timeoutMs;
    if (fresh && timeoutMs > 0) await this.sleepUntilSettled(id, Math.min(timeoutMs, POLL_MS));
    for (;;) {
      const operation = await this.operations.findById(id);
      if (!operation) throw new Error(`Operation ${id} vanished`);
      const left = deadline - Date.now();
      if (operation.status === 'confirmed' || operation.status === 'failed' || left <= 0) {
        return operation;
      }
      await this.sleepUntilSettled(id, Math.min(left, POLL_MS));
    }
  }

  private sleepUntilSettled(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set<() => void>();
      this.waiters.set(id, set);
      const wake = (): void => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
    });
  }

  // After the HTTP server has drained: requests still waiting on SIGTERM keep their wake-ups.
  async onApplicationShutdown(): Promise<void> {
    if (this.unsubscribe) (await this.unsubscribe)();
  }
}
