import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { OperationRepository } from '@app/database';
import { SettlementChannel, redisDeadline } from '@app/queue';
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
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly operations: OperationRepository,
    private readonly channel: SettlementChannel,
  ) {}

  /**
   * The operation once settled, or as it stands when the time is up. `fresh`: the caller just
   * wrote it, so the first read is skipped and the wait starts at once.
   */
  async wait(id: string, timeoutMs: number, fresh = false): Promise<Settlement> {
    await this.listening();
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

  /**
   * Subscribes to settlement news once, waiting for it at most REDIS_TIMEOUT_MS: while Redis is
   * away a wait goes on with Postgres polls alone (slower to notice, never stuck), and a failed
   * subscription is tried again by the next wait.
   */
  private async listening(): Promise<void> {
    if (!this.unsubscribe) {
      const subscribing = this.channel.listen((message) => {
        const news = readSettledMessage(message);
        for (const wake of this.waiters.get(news?.id ?? '') ?? []) wake(news?.settlement);
      });
      this.unsubscribe = subscribing;
      subscribing.catch(() => {
        if (this.unsubscribe === subscribing) this.unsubscribe = undefined;
      });
    }
    const ms = this.config.queue.redisTimeoutMs;
    await redisDeadline(this.unsubscribe, ms, 'subscribe to settlements').catch(() => undefined);
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
  // Not awaited: a subscription still waiting for an unreachable Redis must not hold it up.
  onApplicationShutdown(): void {
    void this.unsubscribe?.then(
      (unsubscribe) => unsubscribe(),
      () => undefined,
    );
  }
}
