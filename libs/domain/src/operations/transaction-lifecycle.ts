import type { AppError, AssetOutcome } from '@app/common';
import type { NetworkDefinition } from '@app/chains';
import type { OperationEntity } from '@app/database';

/** What one round of a check found, when it found anything (otherwise it throws CheckLater). */
export type CheckVerdict =
  /** One of its transactions landed and did what was asked (`adoptedTxHash`: not its latest). */
  | { kind: 'confirmed'; outcome: AssetOutcome; adoptedTxHash?: string }
  /** The chain ran it and refused, or no node will ever take it. */
  | { kind: 'failed'; error: AppError }
  /** None of its transactions landed or ever can: it is `queued` again, to be signed anew. */
  | { kind: 'released'; reason: string };

/**
 * How one chain family carries a transaction, in two stages the family-agnostic pipeline
 * (OperationRunner) drives and settles:
 *
 * - `send`: a `queued` operation is planned, signed and stored (the bytes before anything
 *   leaves); EVM broadcasts it at once, with the wallet's other new transactions in one batch.
 *   It returns the operation as stored, or null when another worker changed it first; a
 *   refusal (`isDefinitive`) is thrown for the pipeline to fail the operation;
 * - `check`: for one round (until `roundEnds`), looks for a verdict on the stored transaction,
 *   sending bytes not sent yet, re-sending, re-pricing or closing nonce gaps as the family
 *   needs; none by then, it throws CheckLater and the job is parked until the next round.
 *   `sentAfter`: when the same run has just sent it, a time (this process's clock) before
 *   `send` began; null otherwise.
 *
 * Both are safe to run twice, in two processes, or after a crash at any point.
 */
export interface TransactionLifecycle<N extends NetworkDefinition = NetworkDefinition> {
  send(network: N, operation: OperationEntity): Promise<OperationEntity | null>;
  check(
    network: N,
    operation: OperationEntity,
    sentAfter: number | null,
    roundEnds: number,
  ): Promise<CheckVerdict>;
}
