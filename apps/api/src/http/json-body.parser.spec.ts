import { jsonDepthExceeds, MAX_JSON_DEPTH, unstorableTextIn } from './json-body.parser';

describe('jsonDepthExceeds', () => {
  const arrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

  it('counts objects and arrays inside each other, up to the limit', () => {
    expect(jsonDepthExceeds(arrays(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonDepthExceeds(arrays(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonDepthExceeds('{"a":{"b":[{"c":1}]}}', 4)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":[{"c":[]}]}}', 4)).toBe(true);
  });

  it('counts depth, not the number of siblings', () => {
    expect(jsonDepthExceeds(`[${Array(1000).fill('{}').join(',')}]`, 2)).toBe(false);
  });

  it('ignores brackets and escaped quotes inside strings', () => {
    expect(jsonDepthExceeds(`{"a":"${'[{'.repeat(100)}"}`, 1)).toBe(false);
    expect(jsonDepthExceeds(`{"a":"\\"[[[[","b":"\\\\"}`, 1)).toBe(false);
    expect(jsonDepthExceeds(`{"a":"\\\\","b":[[]]}`, 2)).toBe(true);
  });

  it('stops at the first level too deep, whatever follows', () => {
    // Characters read, counted (a timed check failed in CI on a busy machine).
    let read = 0;
    const text = Object.assign(new String('['.repeat(1_000_000)), {
      charCodeAt(this: string, index: number): number {
        read++;
        return String.prototype.charCodeAt.call(this, index);
      },
    });
    expect(jsonDepthExceeds(text as unknown as string, MAX_JSON_DEPTH)).toBe(true);
    expect(read).toBe(MAX_JSON_DEPTH + 1);
  });
});

describe('unstorableTextIn', () => {
  it('accepts text Postgres can store, emoji (surrogate pairs) included', () => {
    expect(
      unstorableTextIn({ name: 'Café 🚀', list: ['a', 1, null, true], o: {} }),
    ).toBeUndefined();
    expect(unstorableTextIn(42)).toBeUndefined();
  });

  it('names the field of a NUL character, down arrays and objects', () => {
    expect(unstorableTextIn({ name: 'a\u0000' })).toBe('name contains a NUL character.');
    expect(unstorableTextIn({ attributes: [{ value: 'ok' }, { value: '\u0000' }] })).toBe(
      'attributes.1.value contains a NUL character.',
    );
    expect(unstorableTextIn('\u0000')).toBe('The body contains a NUL character.');
  });

  it('names the field of a lone surrogate, high or low', () => {
    expect(unstorableTextIn({ email: '\ud800@example.com' })).toMatch(
      /^email contains a lone UTF-16 surrogate/,
    );
    expect(unstorableTextIn({ a: { b: 'x\udc00' } })).toMatch(/^a\.b contains a lone UTF-16/);
  });

  it('refuses a field name with either, without repeating the name', () => {
    expect(unstorableTextIn({ attributes: [{ 'a\u0000': 1 }] })).toBe(
      'attributes.0 has a field name that contains a NUL character.',
    );
    expect(unstorableTextIn({ '\ud800': 1 })).toMatch(
      /^The body has a field name that contains a lone/,
    );
  });

  it('cuts a long path', () => {
    const key = 'k'.repeat(500);
    expect(unstorableTextIn({ [key]: '\u0000' })).toBe(
      `${'k'.repeat(200)}... contains a NUL character.`,
    );
  });
});
