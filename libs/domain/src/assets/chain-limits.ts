import { AppError } from '@app/common';
import type { ChainFamily } from '@app/config';

export const UINT256_MAX = 2n ** 256n - 1n;

/**
 * The most base units one amount can be on each chain family: Token-2022 amounts and supplies are
 * u64, ERC-20 amounts uint256. Past it the transaction cannot even be encoded, so such a request
 * is refused before it becomes an operation that could only fail.
 */
export const MAX_BASE_UNITS: Readonly<Record<ChainFamily, bigint>> = {
  solana: 2n ** 64n - 1n,
  evm: UINT256_MAX,
};

/**
 * EVM token ids are uint256, written in decimal without leading zeros: a larger one names no
 * token and could not be encoded in a call.
 */
export function checkEvmTokenId(tokenId: string, field: string): void {
  if (!/^(0|[1-9]\d{0,77})$/.test(tokenId)) {
    throw AppError.badRequest(`${field} must be a token id: a non-negative integer.`);
  }
  if (BigInt(tokenId) > UINT256_MAX) {
    throw AppError.badRequest(
      `${field} is too large: an EVM token id is at most uint256 (${UINT256_MAX}).`,
    );
  }
}
