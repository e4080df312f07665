/** A value read from a chain, and how fresh it is. */
export interface Fresh<T> {
  value: T;
  /** When the chain answered it. */
  asOf: Date;
  /** True when served from the cache rather than read for this request. */
  cached: boolean;
}

/** Where a cached read sits: its group is what one settlement invalidates at once. */
export interface ReadKey {
  /** The network and an address it concerns (an asset, an item's mint, or a wallet group). */
  group: string;
  /** The read within the group (e.g. `owner|42`). */
  read: string;
}

interface Flight<T> {
  promise: Promise<Fresh<T>>;
  /** Set when the group was invalidated while the read was on its way: not stored then. */
  stale: boolean;
}

interface Group {
  entries: Map<string, { fresh: Fresh<unknown>; expiresAt: number }>;
  flights: Map<string, Flight<unknown>>;
}

/**
 * An in-process cache of chain reads with a short TTL, invalidated by group when one of our
 * operations settles, and single-flight: concurrent readers of one key share one chain call.
 * Values are stored only while `storing` is true (the process hears invalidations); otherwise
 * every read is live, still de-duplicated. Bounded: the oldest groups, and in a group the oldest
 * reads, go first.
 */
export class ChainReadCache {
  private readonly groups = new Map<string, Group>();

  constructor(
    private readonly ttlMs: number,
    /** Groups kept (addresses); each keeps at most `groupCapacity` reads (an item's owners). */
    private readonly capacity = 10_000,
    private readonly groupCapacity = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** False until invalidations are heard: then nothing is kept (every read is live). */
  storing = false;

  /**
   * The cached value while fresh, else the chain's (`load`), shared with concurrent readers of
   * the same key. `live`: skip the cached value (Cache-Control: no-cache); the answer refreshes
   * the cache for those after.
   */
  read<T>(key: ReadKey, load: () => Promise<T>, live = false): Promise<Fresh<T>> {
    const group = this.groups.get(key.group);
    if (!live) {
      const entry = group?.entries.get(key.read);
      if (entry && entry.expiresAt > this.now()) {
        return Promise.resolve({ ...(entry.fresh as Fresh<T>), cached: true });
      }
      const flying = group?.flights.get(key.read);
      if (flying) return flying.promise as Promise<Fresh<T>>;
    }
    return this.fly(key, load);
  }

  /** Drops the groups' values; reads on their way when this is called are not stored. */
  invalidate(groups: Iterable<string>): void {
    for (const name of groups) {
      const group = this.groups.get(name);
      if (!group) continue;
      for (const flight of group.flights.values()) flight.stale = true;
      this.groups.delete(name);
    }
  }

  private fly<T>(key: ReadKey, load: () => Promise<T>): Promise<Fresh<T>> {
    const group = this.groupOf(key.group);
    const flight: Flight<T> = { stale: false, promise: undefined! };
    flight.promise = load().then(
      (value) => {
        const fresh = { value, asOf: new Date(this.now()), cached: false };
        this.land(key, flight);
        if (this.storing && !flight.stale && this.ttlMs > 0) this.store(key, fresh);
        return fresh;
      },
      (error: unknown) => {
        this.land(key, flight);
        throw error;
      },
    );
    // A live reader has a read of its own; readers after it join the newest read.
    group.flights.set(key.read, flight);
    return flight.promise;
  }

  private store(key: ReadKey, fresh: Fresh<unknown>): void {
    const { entries } = this.groupOf(key.group);
    entries.delete(key.read);
    if (entries.size >= this.groupCapacity) entries.delete(entries.keys().next().value!);
    entries.set(key.read, { fresh, expiresAt: this.now() + this.ttlMs });
  }

  /** The flight is over: later readers no longer join it. */
  private land(key: ReadKey, flight: Flight<unknown>): void {
    const group = this.groups.get(key.group);
    if (group?.flights.get(key.read) === flight) group.flights.delete(key.read);
  }

  private groupOf(name: string): Group {
    let group = this.groups.get(name);
    if (!group) {
      if (this.groups.size >= this.capacity) this.groups.delete(this.groups.keys().next().value!);
      group = { entries: new Map(), flights: new Map() };
      this.groups.set(name, group);
    }
    return group;
  }
}
