import { AppError } from '@app/common';
import { fromBaseUnits, toBaseUnits } from './amounts';

describe('amounts', () => {
  it('converts numbers and decimal strings to base units', () => {
    expect(toBaseUnits(1, 18)).toBe(10n ** 18n);
    expect(toBaseUnits('1.5', 9)).toBe(1_500_000_000n);
    expect(toBaseUnits(0.000001, 6)).toBe(1n);
    expect(toBaseUnits('123456789012345678901234567890', 0)).toBe(123456789012345678901234567890n);
    expect(toBaseUnits('2.50', 1)).toBe(25n);
  });

  it.each([
    [0, 9, /greater than 0/],
    ['-1', 9, /positive decimal/],
    ['1.2345', 2, /more than 2 fractional digits/],
    ['1e5', 9, /positive decimal/],
    [2 ** 60, 0, /2\^53/],
    ['abc', 9, /positive decimal/],
    ['01', 9, /positive decimal/],
  ])('refuses %p with %p decimals', (value, decimals, message) => {
    expect(() => toBaseUnits(value, decimals)).toThrow(AppError);
    expect(() => toBaseUnits(value, decimals)).toThrow(message);
  });

  it('formats base units back without trailing zeros', () => {
    expect(fromBaseUnits(1_500_000_000n, 9)).toBe('1.5');
    expect(fromBaseUnits(10n ** 18n * 7n, 18)).toBe('7');
    expect(fromBaseUnits(1n, 6)).toBe('0.000001');
    expect(fromBaseUnits(0n, 0)).toBe('0');
  });
});
