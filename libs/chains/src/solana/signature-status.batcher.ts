import { chunksOf } from '@app/common';
import type { SolanaRpc } from './solana-rpc.client';

export type SolanaCommitment = 'processed' | 'confirmed' | 'finalized';

/** A transaction error as the node reports it, e.g. `{ InstructionError: [3, { Custom: 1 }] }`. */
export type TransactionErrorJson = string | { [key: string]: unknown };

export interface SignatureStatus {
  slot: number;
  err: TransactionErrorJson | null;
  /** null on old nodes for rooted transactions. */
  confirmationStatus: SolanaCommitment | null;
}

const MAX_PER_CALL = 256;

/**
 * getSignatureStatuses for many callers at once: lookups asked for in the same tick share one
 * call (up to 256 signatures each), so hundreds of operations in flight cost a few RPCs.
 */
export class SignatureStatusBatcher {
  private pending = new Map<string, ((status: SignatureStatus | null, error?: Error) => void)[]>();
  private scheduled = false;

  constructor(private readonly rpc: SolanaRpc) {}

  status(signature: string): Promise<SignatureStatus | null> {
    return new Promise((resolve, reject) => {
      const waiting = this.pending.get(signature) ?? [];
      waiting.push((status, error) => (error ? reject(error) : resolve(status)));
      this.pending.set(signature, waiting);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    const signatures = [...batch.keys()];
    await Promise.all(
      chunksOf(signatures, MAX_PER_CALL).map(async (chunk) => {
        try {
          const { value } = await this.rpc.call<{ value: (SignatureStatus | null)[] }>(
            'getSignatureStatuses',
            [chunk, { searchTransactionHistory: true }],
          );
          chunk.forEach((signature, index) => {
            for (const done of batch.get(signature) ?? []) done(value[index] ?? null);
          });
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          for (const signature of chunk) {
            for (const done of batch.get(signature) ?? []) done(null, failure);
          }
        }
      }),
    );
  }
}

const RANK: Record<SolanaCommitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

/** Whether a landed transaction's status has reached the wanted commitment. */
export function reached(status: SignatureStatus, wanted: SolanaCommitment): boolean {
  const level = status.confirmationStatus ?? 'finalized';
  return RANK[level] >= RANK[wanted];
}
