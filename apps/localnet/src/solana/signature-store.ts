import type { TransactionRecord } from './ledger.types';

const SIGNATURES_PER_ADDRESS = 1000;

/**
 * Executed transactions by signature, plus a per-address index for getSignaturesForAddress.
 * Old records are dropped past `capacity`, but never while their blockhash could still be valid:
 * the store is also what refuses to execute a duplicate.
 */
export class SignatureStore {
  private readonly records = new Map<string, TransactionRecord>();
  private readonly byAddress = new Map<string, string[]>();

  constructor(
    private readonly capacity: number,
    private readonly minRetentionSlots: number,
  ) {}

  get size(): number {
    return this.records.size;
  }

  get(signature: string): TransactionRecord | undefined {
    return this.records.get(signature);
  }

  has(signature: string): boolean {
    return this.records.has(signature);
  }

  add(record: TransactionRecord, currentSlot: number): void {
    this.records.set(record.signature, record);
    for (const address of record.accountKeys) {
      let list = this.byAddress.get(address);
      if (!list) this.byAddress.set(address, (list = []));
      list.push(record.signature);
      if (list.length > 2 * SIGNATURES_PER_ADDRESS)
        list.splice(0, list.length - SIGNATURES_PER_ADDRESS);
    }
    this.evict(currentSlot);
  }

  /** Newest first. */
  signaturesFor(address: string): TransactionRecord[] {
    const list = this.byAddress.get(address) ?? [];
    const result: TransactionRecord[] = [];
    for (let i = list.length - 1; i >= 0 && result.length < SIGNATURES_PER_ADDRESS; i--) {
      const record = this.records.get(list[i]);
      if (record) result.push(record);
    }
    return result;
  }

  private evict(currentSlot: number): void {
    if (this.records.size <= this.capacity) return;
    for (const [signature, record] of this.records) {
      if (this.records.size <= this.capacity || record.slot >= currentSlot - this.minRetentionSlots)
        return;
      this.records.delete(signature);
    }
  }
}
