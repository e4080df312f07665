import { AppError } from '@app/common';
import type { ChainFamily } from '@app/config';
import { MAX_BASE_UNITS } from './chain-limits';

const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

/**
 * A client amount (JSON number or decimal string, whole-token units) in base units. Refuses
 * zero, negatives, more fractional digits than the token has, and numbers past 2^53 (they have
 * already lost precision in JSON: send those as strings).
 */
export function toBaseUnits(value: number | string, decimals: number, field = 'amount'): bigint {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) {
      throw AppError.badRequest(`${field} beyond 2^53 must be sent as a decimal string.`);
    }
    text = numberToPlain(value);
  } else {
    text = value.trim();
  }
  if (!DECIMAL.test(text)) throw AppError.badRequest(`${field} must be a positive decimal number.`);
  const [whole, fraction = ''] = text.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > decimals) {
    throw AppError.badRequest(`${field} has more than ${decimals} fractional digits.`);
  }
  const units = BigInt(whole + trimmed.padEnd(decimals, '0'));
  if (units <= 0n) throw AppError.badRequest(`${field} must be greater than 0.`);
  return units;
}

const LIMIT_NAME: Readonly<Record<ChainFamily, string>> = {
  solana: 'a Solana token holds at most u64',
  evm: 'an EVM token holds at most uint256',
};

/**
 * A client amount in base units, refused (400) where its chain cannot encode it: checked before
 * anything is stored, so such a request never becomes an operation that can only fail.
 */
export function toChainUnits(
  value: number | string,
  decimals: number,
  family: ChainFamily,
  field = 'amount',
): bigint {
  const units = toBaseUnits(value, decimals, field);
  const max = MAX_BASE_UNITS[family];
  if (units > max) {
    throw AppError.badRequest(
      `${field} is too large: ${LIMIT_NAME[family]} (${max} base units), that is ` +
        `${fromBaseUnits(max, decimals)} with ${decimals} decimals.`,
    );
  }
  return units;
}

/** Base units as a decimal string in whole-token units, without trailing zeros. */
export function fromBaseUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return (negative ? '-' : '') + whole + (fraction ? `.${fraction}` : '');
}

/**
 * Made once: `toLocaleString` with options builds a formatter on every call (80 us, most of an
 * airdrop request's validation of 10,000 amounts).
 */
const PLAIN_NUMBER = new Intl.NumberFormat('en-US', {
  useGrouping: false,
  maximumFractionDigits: 20,
});

function numberToPlain(value: number): string {
  // Avoids exponent notation for small fractions such as 1e-7.
  return PLAIN_NUMBER.format(value);
}
