import { boundedText } from './bounded-text';

describe('boundedText', () => {
  it('keeps short text as it is', () => {
    expect(boundedText('short', 10)).toBe('short');
    expect(boundedText(new Error('boom'))).toBe('Error: boom');
    expect(boundedText(42)).toBe('42');
  });

  it('cuts long text to at most max characters and says how much was left out', () => {
    const long = 'x'.repeat(100_000);
    const bounded = boundedText(long, 200);
    expect(bounded.length).toBeLessThanOrEqual(200);
    expect(bounded).toMatch(/^x+…\[\+\d+ chars\]$/);
    const kept = bounded.indexOf('…');
    expect(bounded).toContain(`[+${100_000 - kept} chars]`);
  });

  it('never splits a surrogate pair', () => {
    const bounded = boundedText('😀'.repeat(100), 31);
    expect(bounded.length).toBeLessThanOrEqual(31);
    expect(bounded.replace(/😀/g, '')).toMatch(/^…\[\+\d+ chars\]$/);
  });

  it('survives values that cannot be turned into text', () => {
    const hostile = {
      toString() {
        throw new Error('no');
      },
    };
    expect(boundedText(hostile)).toBe('[object Object]');
    expect(boundedText('abcdef', 3)).toBe('abc');
  });
});
