import type { AppConfig, ConcreteNetwork } from '@app/config';
import { linedDelayMs, type OperationJobData } from '@app/queue';

/** One of an account's in-flight slots on a network, held by one operation. */
export interface Slot {
  network: ConcreteNetwork;
  accountId: string;
  operationId: string;
}

/** Either run now, holding one of the account's in-flight slots, or come back after a delay. */
export type SlotDecision = { run: true } | { run: false; delayMs: number };

/**
 * What trying to take a slot found: whether it was taken, and the account's pending count. A job
 * refused a slot is in its account's line for one, which brings it back when one frees.
 */
export interface SlotAttempt {
  taken: boolean;
  pending: number;
}

/** The slot a job's operation runs in, or null for a job of an older release (not counted). */
export function slotOf(job: OperationJobData): Slot | null {
  const { accountId, network, operationId } = job;
  return accountId && network ? { accountId, network, operationId } : null;
}

/**
 * Run when the slot was taken; otherwise wait in the line until a freed slot hands it over, its
 * delay only the fallback should that hand-over be lost (linedDelayMs; `random` jitters it).
 */
export function decideSlot(
  attempt: SlotAttempt,
  scheduling: Pick<AppConfig['scheduling'], 'maxInFlight' | 'overCapDelayMs'>,
  random?: () => number,
): SlotDecision {
  if (attempt.taken) return { run: true };
  const { maxInFlight, overCapDelayMs: baseMs } = scheduling;
  return { run: false, delayMs: linedDelayMs(attempt.pending, maxInFlight, baseMs, random) };
}
