import { CheckLater } from './check-later';

/** Forgotten this long after its last round: the operation settled elsewhere, or moved worker. */
const FORGET_AFTER_MS = 10 * 60_000;
/** Lookups between two sweeps of forgotten entries. */
const SWEEP_EVERY = 1_000;

/**
 * What an executor remembers of an operation from one round of its check to the next (its
 * timers), in this process only. Entries the operation's last round did not clear (its job went
 * to another worker) are dropped FORGET_AFTER_MS after they were last used.
 */
export class RoundMemory<T extends object> {
  private readonly entries = new Map<string, { value: T; usedAt: number }>();
  private lookups = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The operation's entry, made by `create` when there is none. */
  of(operationId: string, create: () => T): T {
    if (++this.lookups % SWEEP_EVERY === 0) this.sweep();
    const entry = this.entries.get(operationId);
    if (entry) {
      entry.usedAt = this.now();
      return entry.value;
    }
    const value = create();
    this.entries.set(operationId, { value, usedAt: this.now() });
    return value;
  }

  /**
   * One round of the operation's check: its entry is forgotten when the round ends the check
   * (a verdict, or an error other than CheckLater), and kept while the check is parked.
   */
  async round<R>(operationId: string, work: () => Promise<R>): Promise<R> {
    try {
      const result = await work();
      this.forget(operationId);
      return result;
    } catch (error) {
      if (!(error instanceof CheckLater)) this.forget(operationId);
      throw error;
    }
  }

  has(operationId: string): boolean {
    return this.entries.has(operationId);
  }

  forget(operationId: string): void {
    this.entries.delete(operationId);
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const cutoff = this.now() - FORGET_AFTER_MS;
    for (const [id, entry] of this.entries) if (entry.usedAt < cutoff) this.entries.delete(id);
  }
}
