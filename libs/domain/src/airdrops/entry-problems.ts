import { AppError, INVALID_BODY_MESSAGE } from '@app/common';
import { AIRDROP_NAMED_PROBLEMS_MAX } from './airdrop-inputs';

/**
 * Checks every entry of an airdrop before anything is stored (all or nothing): `check` reads
 * one entry, throwing the AppError of its first problem; the entries that pass are returned, or
 * one 400 naming the bad ones by index (the first few, the rest counted).
 */
export function checkEntries<I, O>(entries: I[], check: (entry: I, index: number) => O): O[] {
  const checked: O[] = [];
  const problems: string[] = [];
  let bad = 0;
  entries.forEach((entry, index) => {
    try {
      checked.push(check(entry, index));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'BAD_REQUEST') throw error;
      bad++;
      if (problems.length < AIRDROP_NAMED_PROBLEMS_MAX) problems.push(problemOf(error));
    }
  });
  if (bad === 0) return checked;
  const more = bad > problems.length ? ` (and ${bad - problems.length} more bad entries)` : '';
  throw AppError.badRequest(`${problems.map(withoutStop).join('; ')}${more}.`);
}

/** The problem itself: without the envelope's opening words, each refusal brings its own. */
function problemOf(error: AppError): string {
  return error.message.replace(INVALID_BODY_MESSAGE, '').trim();
}

function withoutStop(message: string): string {
  return message.endsWith('.') ? message.slice(0, -1) : message;
}
