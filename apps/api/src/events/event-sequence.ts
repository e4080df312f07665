import { ValidateBy, type ValidationOptions } from 'class-validator';
import { AppError } from '@app/common';

/** The largest sequence number a client may name: JSON numbers are exact up to here. */
export const MAX_EVENT_SEQUENCE = Number.MAX_SAFE_INTEGER;

/**
 * A sequence number as a client writes it (`?after=`, `Last-Event-ID`): decimal digits only (no
 * sign, exponent or fraction), 0 to MAX_EVENT_SEQUENCE; undefined for anything else.
 */
export function parseEventSequence(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^[0-9]{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return value <= MAX_EVENT_SEQUENCE ? value : undefined;
}

function sequenceRule(name: string): string {
  return `${name} must be an event sequence number: an integer from 0 to ${MAX_EVENT_SEQUENCE}`;
}

/** A query field holding a sequence number (see parseEventSequence). */
export function IsEventSequence(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isEventSequence',
      validator: {
        validate: (value) => parseEventSequence(value) !== undefined,
        defaultMessage: (args) => sequenceRule(args?.property ?? 'value'),
      },
    },
    options,
  );
}

/**
 * Where a stream starts: after the `Last-Event-ID` header's sequence (what a reconnecting
 * EventSource sends), else after `?after=`, else (`'latest'`) after the account's last event, so
 * that only new events come. An empty header is no header: EventSource sends none until an event
 * with an id came.
 */
export function streamStart(
  lastEventId: string | string[] | undefined,
  after: string | undefined,
): number | 'latest' {
  const header = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId;
  if (header !== undefined && header.trim() !== '') {
    const sequence = parseEventSequence(header.trim());
    if (sequence === undefined) throw AppError.badRequest(`${sequenceRule('Last-Event-ID')}.`);
    return sequence;
  }
  if (after === undefined) return 'latest';
  const sequence = parseEventSequence(after);
  if (sequence === undefined) throw AppError.badRequest(`${sequenceRule('after')}.`);
  return sequence;
}
