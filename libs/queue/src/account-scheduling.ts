/**
 * Fair share between accounts on one network's queue, on what open-source BullMQ has: job
 * priorities. An operation's priority is its place in its own account's backlog, divided by the
 * account's weight: the k-th pending operation of an account gets priority ceil(k / weight).
 * Whatever the accounts' backlogs, a worker takes their jobs round-robin (weighted): an account
 * with one pending operation is served next, even behind another's 10,000 (BullMQ takes the
 * lowest priority number first, FIFO within one number).
 */

/** The priority of an account's first `weight` pending operations: none of its others ahead. */
export const FIRST_PRIORITY = 1;

/** BullMQ's highest (least urgent) priority number. */
export const LOWEST_PRIORITY = 2 ** 21 - 1;

/** Priority of an account's job when it has `pending` operations (this one included). */
export function fairSharePriority(pending: number, weight: number): number {
  const rank = Math.ceil(Math.max(1, pending) / weight);
  return Math.min(LOWEST_PRIORITY, Math.max(FIRST_PRIORITY, rank));
}

/**
 * A job refused a slot waits in its account's line, and a freed slot hands it over; its delay
 * is only the fallback should that hand-over be lost (its worker killed in between): about the
 * time the account's backlog ahead of it needs to drain through its `cap` slots (`baseMs` a
 * round), times LINED_DELAY_FACTOR so that the line drains first rather than delayed jobs
 * coming round again while it does, at most MAX_LINED_DELAY_MS, jittered a quarter either way
 * so that they spread.
 */
export const LINED_DELAY_FACTOR = 4;
export const MAX_LINED_DELAY_MS = 60_000;

export function linedDelayMs(
  pending: number,
  cap: number,
  baseMs: number,
  random: () => number = Math.random,
): number {
  const rounds = Math.max(1, Math.ceil(pending / cap));
  const delay = Math.min(baseMs * rounds * LINED_DELAY_FACTOR, MAX_LINED_DELAY_MS);
  return Math.round(delay * (0.75 + random() * 0.5));
}

/**
 * Whether a job being queued goes straight to its account's line: all its account's slots are
 * held, counting those the jobs queued just before it (`ahead`) will take, and this many rounds
 * of them are pending, or the jobs ahead of it fill the slots by themselves. Queued, it would
 * only be fetched to be put back (a run of the queue's scripts and ours for nothing, once for
 * each job of a large backlog).
 */
export const QUEUED_ROUNDS = 2;

export function joinsLine(pending: number, inFlight: number, cap: number, ahead = 0): boolean {
  return inFlight + ahead >= cap && (pending > cap * QUEUED_ROUNDS || ahead >= cap);
}
