/** Forgotten blocks are cut from the front of the list once this many have piled up there. */
const COMPACT_AFTER = 1_000;

/** The transaction hashes of the blocks read in the last `keepMs`, to look up by hash. */
export class RecentBlocks {
  /** Oldest first; those before `first` are forgotten (dropped from the array now and then). */
  private blocks: { readAt: number; hashes: string[] }[] = [];
  private first = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly keepMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  add(hashes: string[]): void {
    this.forgetOld();
    this.blocks.push({ readAt: this.now(), hashes });
    for (const hash of hashes) this.counts.set(hash, (this.counts.get(hash) ?? 0) + 1);
  }

  has(hash: string): boolean {
    this.forgetOld();
    return this.counts.has(hash);
  }

  private forgetOld(): void {
    const oldest = this.now() - this.keepMs;
    while (this.first < this.blocks.length && this.blocks[this.first].readAt < oldest) {
      for (const hash of this.blocks[this.first].hashes) {
        const left = this.counts.get(hash)! - 1;
        if (left === 0) this.counts.delete(hash);
        else this.counts.set(hash, left);
      }
      this.first += 1;
    }
    if (this.first > COMPACT_AFTER && this.first * 2 > this.blocks.length) {
      this.blocks = this.blocks.slice(this.first);
      this.first = 0;
    }
  }
}
