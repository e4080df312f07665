/**
 * A small in-process cache for values that never change once written (an asset's address and
 * owner, an account's managed wallet address, a settled operation). Bounded: the oldest entries
 * go first.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity = 10_000) {}

  /** `keeps`: whether a loaded value is final (kept); one that may still change is not. */
  async getOrLoad(
    key: string,
    load: () => Promise<V | null>,
    keeps: (value: V) => boolean = () => true,
  ): Promise<V | null> {
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const loaded = await load();
    if (loaded !== null && keeps(loaded)) {
      if (this.entries.size >= this.capacity) {
        this.entries.delete(this.entries.keys().next().value!);
      }
      this.entries.set(key, loaded);
    }
    return loaded;
  }
}
