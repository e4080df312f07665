import type { AppConfig, ConcreteNetwork } from '@app/config';
import { linedDelayMs, overCapDelayMs, type OperationJobData } from '@app/queue';

/** One of an account's in-flight slots on a network, held by one operation. */
export interface Slot {
  network: ConcreteNetwork;
  accountId: string;
  operationId: string;
}

/** Either run now, holding one of the account's in-flight slots, or come back after a delay. */
export type SlotDecision = { run: true } | { run: false; delayMs: number };

/**
 * What trying to take a slot found: whether it was taken, the account's pending count, and
 * whether the job joined the account's line for a slot (which brings it back when one frees).
 */
export interface SlotAttempt {
  taken: boolean;
  pending: number;
  lined?: boolean;
}

/** The slot a job's operation runs in, or null for a job of an older release (not counted). */
export function slotOf(job: OperationJobData): Slot | null {
  const { accountId, network, operationId } = job;
  return accountId && network ? { accountId, network, operationId } : null;
}

/**
 * Run when the slot was taken; otherwise come back about when the account's backlog ahead has
 * drained through its slots (see overCapDelayMs; `random` jitters it), or, in the line, when a
 * freed slot hands it over (its delay a fallback: linedDelayMs).
 */
export function decideSlot(
  attempt: SlotAttempt,
  scheduling: Pick<AppConfig['scheduling'], 'maxInFlight' | 'overCapDelayMs'>,
  random?: () => number,
): SlotDecision {
  if (attempt.taken) return { run: true };
  const { maxInFlight, overCapDelayMs: baseMs } = scheduling;
  const delayOf = attempt.lined ? linedDelayMs : overCapDelayMs;
  return { run: false, delayMs: delayOf(attempt.pending, maxInFlight, baseMs, random) };
}
