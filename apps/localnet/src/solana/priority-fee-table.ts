interface SlotFees {
  /** The lowest compute-unit price (micro-lamports) of the transactions that landed in the slot. */
  min: bigint;
  /** Per write-locked account, the lowest price of the slot's transactions that locked it. */
  byAccount: Map<string, bigint>;
}

/**
 * What getRecentPrioritizationFees reports, kept the way a validator's prioritization-fee cache
 * keeps it. Asked with accounts, a slot's fee is the highest of the slot's own minimum and those
 * accounts' minimums: what it took to land there while write-locking all of them. So a busy
 * account shows its price even when other transactions of the slot paid nothing.
 */
export class PriorityFeeTable {
  // Insertion order is slot order, so the oldest slots are the first to go.
  private readonly slots = new Map<number, SlotFees>();

  note(slot: number, microLamports: bigint, writable: readonly string[]): void {
    let fees = this.slots.get(slot);
    if (!fees) {
      fees = { min: microLamports, byAccount: new Map() };
      this.slots.set(slot, fees);
    } else if (microLamports < fees.min) {
      fees.min = microLamports;
    }
    for (const account of writable) {
      const current = fees.byAccount.get(account);
      if (current === undefined || microLamports < current) {
        fees.byAccount.set(account, microLamports);
      }
    }
  }

  /** Forgets the slots before this one. */
  prune(oldestKept: number): void {
    for (const slot of this.slots.keys()) {
      if (slot >= oldestKept) break;
      this.slots.delete(slot);
    }
  }

  /** The slot's fee for transactions locking these accounts (0 where nothing landed). */
  feeAt(slot: number, accounts: readonly string[]): bigint {
    const fees = this.slots.get(slot);
    if (!fees) return 0n;
    let fee = fees.min;
    for (const account of accounts) {
      const locked = fees.byAccount.get(account);
      if (locked !== undefined && locked > fee) fee = locked;
    }
    return fee;
  }
}
