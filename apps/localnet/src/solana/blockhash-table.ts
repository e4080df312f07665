/** Blockhashes a validator still accepts, each with the last block height it is valid for. */
export class BlockhashTable {
  // Insertion order is issue order, so the oldest entries are the first to expire.
  private readonly lastValidByHash = new Map<string, number>();
  private latestHash = '';

  constructor(private readonly maxAge: number) {}

  issue(blockhash: string, blockHeight: number): void {
    this.lastValidByHash.set(blockhash, blockHeight + this.maxAge);
    this.latestHash = blockhash;
  }

  prune(blockHeight: number): void {
    for (const [hash, lastValid] of this.lastValidByHash) {
      if (lastValid >= blockHeight) break;
      this.lastValidByHash.delete(hash);
    }
  }

  latest(): { blockhash: string; lastValidBlockHeight: number } {
    return {
      blockhash: this.latestHash,
      lastValidBlockHeight: this.lastValidByHash.get(this.latestHash) ?? 0,
    };
  }

  isValid(blockhash: string, blockHeight: number): boolean {
    const lastValid = this.lastValidByHash.get(blockhash);
    return lastValid !== undefined && lastValid >= blockHeight;
  }

  /** Valid blockhashes, newest first. */
  *newestFirst(): Generator<string> {
    const hashes = [...this.lastValidByHash.keys()];
    for (let i = hashes.length - 1; i >= 0; i--) yield hashes[i];
  }
}
