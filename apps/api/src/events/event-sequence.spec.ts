import { AppError } from '@app/common';
import { MAX_EVENT_SEQUENCE, parseEventSequence, streamStart } from './event-sequence';

describe('parseEventSequence', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['007', 7],
    ['42', 42],
    [String(MAX_EVENT_SEQUENCE), MAX_EVENT_SEQUENCE],
  ])('reads %s as %d', (text, expected) => {
    expect(parseEventSequence(text)).toBe(expected);
  });

  it.each([
    '',
    ' 1',
    '1 ',
    '-1',
    '+1',
    '1.5',
    '1e3',
    '0x10',
    'abc',
    String(MAX_EVENT_SEQUENCE + 1),
    '99999999999999999',
    '9223372036854775807',
  ])('refuses %j', (text) => {
    expect(parseEventSequence(text)).toBeUndefined();
  });

  it('refuses what is not a string (a repeated query parameter is an array)', () => {
    expect(parseEventSequence(['1', '2'])).toBeUndefined();
    expect(parseEventSequence(3)).toBeUndefined();
    expect(parseEventSequence(undefined)).toBeUndefined();
  });
});

describe('streamStart', () => {
  it('starts after Last-Event-ID when sent, whatever ?after= says', () => {
    expect(streamStart('12', '3')).toBe(12);
    expect(streamStart(' 12 ', undefined)).toBe(12);
    expect(streamStart(['5', '6'], undefined)).toBe(5);
  });

  it('starts after ?after= without the header, or an empty one', () => {
    expect(streamStart(undefined, '3')).toBe(3);
    expect(streamStart('', '0')).toBe(0);
  });

  it('starts after the latest event when told nothing', () => {
    expect(streamStart(undefined, undefined)).toBe('latest');
    expect(streamStart('  ', undefined)).toBe('latest');
  });

  it('refuses a bad Last-Event-ID or after with a 400 naming it', () => {
    const refusal = (run: () => unknown): AppError => {
      try {
        run();
      } catch (error) {
        return error as AppError;
      }
      throw new Error('not refused');
    };
    const header = refusal(() => streamStart('abc', undefined));
    expect(header.status).toBe(400);
    expect(header.message).toMatch(
      /^Invalid request body\. Last-Event-ID must be an event sequence number/,
    );
    const query = refusal(() => streamStart(undefined, '-1'));
    expect(query.status).toBe(400);
    expect(query.message).toMatch(
      /after must be an event sequence number: an integer from 0 to 9007199254740991/,
    );
  });
});
