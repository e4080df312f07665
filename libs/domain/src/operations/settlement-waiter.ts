import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { OperationRepository } from '@app/database';
import { SettlementChannel } from '@app/queue';
import { readSettledMessage, settlementOf, type Settlement } from './settlement';

const POLL_MS = 1_000;

/**
 * Waits for an operation to settle: woken by the settlement channel, whose message carries the
 * settlement written by the worker that settled it, and polling Postgres as a backstop (a
 * pub/sub message can be lost).
 */
@Injectable()
export class SettlementWaiter implements OnApplicationShutdown {
  private readonly waiters = new Map<string, Set<(news?: Settlement) => void>>();
  private unsubscribe?: Promise<() => void>;

  constructor(
    private readonly operations: OperationRepository,
    private readonly channel: SettlementChannel,
  ) {}

  /**
   * The operation once settled, or as it stands when the time is up. `fresh`: the caller just
   * wrote it, so the first read is skipped and the wait starts at once.
   */
  async wait(id: string, timeoutMs: number, fresh = false): Promise<Settlement> {
    this.unsubscribe ??= this.channel.listen((message) => {
      const news = readSettledMessage(message);
      for (const wake of this.waiters.get(news?.id ?? '') ?? []) wake(news?.settlement);
    });
    await this.unsubscribe;
    const deadline = Date.now() + timeoutMs;
    if (fresh && timeoutMs > 0) {
      const news = await this.sleepUntilSettled(id, Math.min(timeoutMs, POLL_MS));
      if (news) return news;
    }
    for (;;) {
      const operation = await this.operations.findById(id);
      if (!operation) throw new Error(`Operation ${id} vanished`);
      const left = deadline - Date.now();
      if (operation.status === 'confirmed' || operation.status === 'failed' || left <= 0) {
        return settlementOf(operation);
      }
      const news = await this.sleepUntilSettled(id, Math.min(left, POLL_MS));
      if (news) return news;
    }
  }

  /** Resolves with the settlement when the news carries it, else empty (read Postgres). */
  private sleepUntilSettled(id: string, ms: number): Promise<Settlement | undefined> {
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set<(news?: Settlement) => void>();
      this.waiters.set(id, set);
      const wake = (news?: Settlement): void => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0) this.waiters.delete(id);
        resolve(news);
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
