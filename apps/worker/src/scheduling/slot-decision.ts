import type { AppConfig, ConcreteNetwork } from '@app/config';
import { MAX_OVER_CAP_DELAY_MS, overCapDelayMs, type OperationJobData } from '@app/queue';

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

/**
 * A job in the line comes back when a slot frees; its delay is only the fallback should that
 * hand-over be lost (its worker killed in between), so it is long enough that the line drains
 * first, rather than put back jobs coming round again while it does.
 */
export const LINED_DELAY_FACTOR = 4;

/** The slot a job's operation runs in, or null for a job of an older release (not counted). */
export function slotOf(job: OperationJobData): Slot | null {
  const { accountId, network, operationId } = job;
  return accountId && network ? { accountId, network, operationId } : null;
}

/**
 * Run when the slot was taken; otherwise come back about when the account's backlog ahead has
 * drained through its slots (see overCapDelayMs; `random` jitters it), or for a job in the line
 * LINED_DELAY_FACTOR times that, within the longest delay.
 */
export function decideSlot(
  attempt: SlotAttempt,
  scheduling: Pick<AppConfig['scheduling'], 'maxInFlight' | 'overCapDelayMs'>,
  random?: () => number,
): SlotDecision {
  if (attempt.taken) return { run: true };
  const { maxInFlight, overCapDelayMs: baseMs } = scheduling;
  const delayMs = overCapDelayMs(attempt.pending, maxInFlight, baseMs, random);
  if (!attempt.lined) return { run: false, delayMs };
  return { run: false, delayMs: Math.min(delayMs * LINED_DELAY_FACTOR, MAX_OVER_CAP_DELAY_MS) };
}
