import type { Rng } from './fuzz-random';

/**
 * Hostile values for request bodies, query strings and headers. A body is built as a tree of
 * plain values and `RawJson` tokens, the latter written verbatim so that number forms JSON.stringify
 * cannot produce (1e400, -0, 1E+2, 80-digit integers) reach the server as sent.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

export type FuzzValue =
  null | boolean | number | string | RawJson | FuzzValue[] | { [key: string]: FuzzValue };

/** JSON text of a value; lone surrogates are escaped (\ud800), as JSON.stringify does. */
export function toJson(value: FuzzValue): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Strings that have broken services: NUL, lone surrogates, direction marks, combining marks... */
export const UNICODE_SAMPLES: readonly (readonly [string, string])[] = [
  ['nul', 'a\u0000b'],
  ['nul-only', '\u0000'],
  ['lone-high-surrogate', 'x\ud800y'],
  ['lone-low-surrogate', '\udfff'],
  ['reversed-surrogates', '\udc00\ud800'],
  ['rtl-override', 'abc\u202edcba'],
  ['rtl-mark', '\u200ftoken\u200f'],
  ['zero-width', 'to\u200bken\u2060'],
  ['bom', '\ufeffname'],
  ['emoji', '🦀👩‍👩‍👧‍👦🏳️‍🌈'],
  ['combining', 'e\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308'.repeat(40)],
  ['control', '\u0001\u0007\u001b[31m\u007f'],
  ['newlines', 'line1\r\nline2\u2028line3\u2029'],
  ['astral', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢'],
  ['noncharacter', '\uffff\ufffe'],
  ['replacement', '\ufffd\ufffd'],
];

/** Strings that look like other types, or that other layers interpret. */
export const TRICKY_STRINGS: readonly string[] = [
  '',
  ' ',
  '   1 ',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '0',
  '-1',
  '1e3',
  '1E+2',
  '1e-7',
  '1e400',
  '0x10',
  '0b11',
  '0o17',
  '1_000',
  '00012',
  '.5',
  '5.',
  '1.5.5',
  '1,5',
  '١٢٣',
  '123456789012345678901234567890123456789012345678901234567890123456789012345678901234',
  '18446744073709551616',
  '115792089237316195423570985008687907853269984665640564039457584007913129639936',
  '0.000000000000000000000000000000000001',
  "' OR 1=1 --",
  '"; DROP TABLE accounts; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '../../../../etc/passwd',
  '%00',
  '%zz',
  '\\u0000',
  'http://127.0.0.1:1/',
  'javascript:alert(1)',
  'data:text/html,<b>x</b>',
  'file:///etc/passwd',
  'ais_' + 'A'.repeat(43),
  '__proto__',
  'constructor',
];

export { PROTOTYPE_NAMES } from '@test/support/prototype-names';

/** Number tokens, written verbatim into the JSON text. */
export const NUMBER_TOKENS: readonly string[] = [
  '0',
  '-0',
  '-1',
  '1.5',
  '0.1',
  '-0.000001',
  '1e3',
  '1E+2',
  '1e-7',
  '1e21',
  '1e308',
  '1e309',
  '1e400',
  '-1e400',
  '9007199254740993',
  '18446744073709551616',
  '115792089237316195423570985008687907853269984665640564039457584007913129639936',
  '1' + '0'.repeat(400),
  '0.' + '0'.repeat(400) + '1',
  '123456789.123456789123456789',
  '4294967296',
  '2147483648',
  '-9223372036854775809',
];

/** A value of any JSON type, small or not, chosen to surprise a field's validator. */
export function hostileValue(rng: Rng, depth = 0): FuzzValue {
  return labelledHostileValue(rng, depth)[1];
}

/** hostileValue with the kind it drew (null, number, unicode, nested...), for the report. */
export function labelledHostileValue(rng: Rng, depth = 0): [string, FuzzValue] {
  const kind = rng.weighted<string>([
    ['null', 3],
    ['bool', 2],
    ['number', 6],
    ['tricky', 6],
    ['unicode', 5],
    ['long', 2],
    ['array', depth < 3 ? 3 : 0],
    ['object', depth < 3 ? 3 : 0],
    ['nested', 1],
  ]);
  return [kind, hostileOfKind(rng, kind, depth)];
}

function hostileOfKind(rng: Rng, kind: string, depth: number): FuzzValue {
  switch (kind) {
    case 'null':
      return null;
    case 'bool':
      return rng.chance(0.5);
    case 'number':
      return new RawJson(rng.pick(NUMBER_TOKENS));
    case 'tricky':
      return rng.pick(TRICKY_STRINGS);
    case 'unicode':
      return rng.pick(UNICODE_SAMPLES)[1];
    case 'long':
      return longString(rng, rng.pick([101, 257, 2001, 10_000, 100_000]));
    case 'array':
      return Array.from({ length: rng.int(0, 4) }, () => hostileValue(rng, depth + 1));
    case 'object':
      return hostileObject(rng, depth + 1);
    default:
      return nested(rng.pick(['array', 'object'] as const), rng.pick([33, 200, 1_500]));
  }
}

/** An object with keys that trip prototype handling, empty keys and long keys. */
export function hostileObject(rng: Rng, depth = 0): { [key: string]: FuzzValue } {
  const keys = ['__proto__', 'constructor', 'prototype', '', 'a'.repeat(300), 'toString', 'k'];
  const out: { [key: string]: FuzzValue } = {};
  for (let i = rng.int(0, 3); i > 0; i--) {
    Object.defineProperty(out, rng.pick(keys), {
      value: hostileValue(rng, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** `depth` nested arrays or objects around a number: JSON text only (no recursion to build). */
export function nested(kind: 'array' | 'object', depth: number): RawJson {
  return kind === 'array'
    ? new RawJson('['.repeat(depth) + '1' + ']'.repeat(depth))
    : new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

/** A long string mixing ASCII with a few multi-byte and combining characters. */
export function longString(rng: Rng, length: number): string {
  const unit = rng.pick(['a', 'é', '字', 'e\u0301', '🦀', 'ab ']);
  // Whole units only: cutting an emoji in half would make this a lone-surrogate case.
  return unit.repeat(Math.ceil(length / unit.length));
}
