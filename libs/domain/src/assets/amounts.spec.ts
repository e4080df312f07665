import { AppError } from '@app/common';
import { fromBaseUnits, toBaseUnits, toChainUnits } from './amounts';

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

  describe('toChainUnits', () => {
    const U64_MAX = 2n ** 64n - 1n;
    const UINT256_MAX = 2n ** 256n - 1n;

    it('takes up to the u64 maximum on Solana and the uint256 maximum on EVM', () => {
      expect(toChainUnits('18446744073709.551615', 6, 'solana')).toBe(U64_MAX);
      expect(toChainUnits(UINT256_MAX.toString(), 0, 'evm')).toBe(UINT256_MAX);
      expect(toChainUnits(fromBaseUnits(UINT256_MAX, 18), 18, 'evm')).toBe(UINT256_MAX);
    });

    it('refuses one base unit more on Solana, naming the field and the limit', () => {
      const call = () => toChainUnits('18446744073709.551616', 6, 'solana', 'amount');
      expect(call).toThrow(AppError);
      expect(call).toThrow(
        'Invalid request body. amount is too large: a Solana token holds at most u64 ' +
          '(18446744073709551615 base units), that is 18446744073709.551615 with 6 decimals.',
      );
    });

    it('refuses an EVM amount that overflows uint256 once scaled by its decimals', () => {
      // 10^60 whole tokens fit in a JSON string but not in uint256 with 18 decimals.
      const call = () => toChainUnits(`1${'0'.repeat(60)}`, 18, 'evm');
      expect(call).toThrow(AppError);
      expect(call).toThrow(
        /^Invalid request body\. amount is too large: an EVM token holds at most uint256 \(115792\d+ base units\)/,
      );
      expect(() => toChainUnits((UINT256_MAX + 1n).toString(), 0, 'evm')).toThrow(/too large/);
    });

    it('still applies the base rules first', () => {
      expect(() => toChainUnits('0', 9, 'solana')).toThrow(/greater than 0/);
    });
  });

  it('formats base units back without trailing zeros', () => {
    expect(fromBaseUnits(1_500_000_000n, 9)).toBe('1.5');
    expect(fromBaseUnits(10n ** 18n * 7n, 18)).toBe('7');
    expect(fromBaseUnits(1n, 6)).toBe('0.000001');
    expect(fromBaseUnits(0n, 0)).toBe('0');
  });
});
