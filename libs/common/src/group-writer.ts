/**
 * Writes that arrive while one is under way are made together, in one `write` of up to
 * `maxGroup` (group commit): under load, many callers cost one transaction, one lock turn and one
 * commit; alone, a caller's write starts at once. Each caller gets its item's result (the
 * `write`'s array, in the items' order). When a group's write fails, each of its items is
 * written alone, so one item that cannot be written fails only its own caller; unless the
 * error says the write may have landed whole (a connection cut before its answer, see
 * `GroupOptions.splits`), when every caller gets it.
 */
export class GroupWriter<T, R = void> {
  private pending: Waiting<T, R>[] = [];
  private writing = false;
  private readonly splits: (error: unknown) => boolean;
  /** Called whenever the writer has nothing left to do (its owner may forget it). */
  private readonly onIdle: () => void;

  constructor(
    private readonly write: (items: T[]) => Promise<R[] | void>,
    private readonly maxGroup: number,
    options: GroupOptions & { onIdle?: () => void } = {},
  ) {
    this.splits = options.splits ?? (() => true);
    this.onIdle = options.onIdle ?? (() => undefined);
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const group = this.pending.splice(0, this.maxGroup);
      try {
        const results = await this.write(group.map((waiting) => waiting.item));
        group.forEach((waiting, i) => waiting.resolve(results?.[i] as R));
      } catch (error) {
        if (group.length === 1 || !this.splits(error)) {
          for (const waiting of group) waiting.reject(error);
        } else {
          for (const waiting of group) await this.writeAlone(waiting);
        }
      }
    }
    this.writing = false;
    this.onIdle();
  }

  private async writeAlone(waiting: Waiting<T, R>): Promise<void> {
    try {
      const results = await this.write([waiting.item]);
      waiting.resolve(results?.[0] as R);
    } catch (error) {
      waiting.reject(error);
    }
  }
}

export interface GroupOptions {
  /**
   * Whether a failed group is written again item by item (the default, for any error). False
   * for an error after which writing an item again could write it twice: each caller gets the
   * error, to find out what landed.
   */
  splits?: (error: unknown) => boolean;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/** A GroupWriter per key (an account, a batch): each key's writes grouped apart, forgotten idle. */
export class KeyedGroupWriters<T, R = void> {
  private readonly writers = new Map<string, GroupWriter<T, R>>();

  constructor(
    private readonly write: (key: string, items: T[]) => Promise<R[] | void>,
    private readonly maxGroup: number,
    private readonly options: GroupOptions = {},
  ) {}

  submit(key: string, item: T): Promise<R> {
    let writer = this.writers.get(key);
    if (!writer) {
      writer = new GroupWriter<T, R>((items) => this.write(key, items), this.maxGroup, {
        ...this.options,
        onIdle: () => this.writers.delete(key),
      });
      this.writers.set(key, writer);
    }
    return writer.submit(item);
  }
}
