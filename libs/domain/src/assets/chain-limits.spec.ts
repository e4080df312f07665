import { AppError } from '@app/common';
import { UINT256_MAX, checkEvmTokenId } from './chain-limits';

describe('checkEvmTokenId', () => {
  it('takes 0 up to the uint256 maximum', () => {
    expect(() => checkEvmTokenId('0', 'token_id')).not.toThrow();
    expect(() => checkEvmTokenId('42', 'token_id')).not.toThrow();
    expect(() => checkEvmTokenId(UINT256_MAX.toString(), 'token_id')).not.toThrow();
  });

  it('refuses a 78-digit id past uint256, naming the field and the limit', () => {
    const call = () => checkEvmTokenId((UINT256_MAX + 1n).toString(), 'tokenId');
    expect(call).toThrow(AppError);
    expect(call).toThrow(
      `Invalid request body. tokenId is too large: an EVM token id is at most uint256 (${UINT256_MAX}).`,
    );
    expect(() => checkEvmTokenId('9'.repeat(78), 'token_id')).toThrow(/too large/);
  });

  it.each(['-1', '01', '1.5', 'abc', '9'.repeat(79), ''])('refuses %p as not a token id', (id) => {
    expect(() => checkEvmTokenId(id, 'token_id')).toThrow(/must be a token id/);
  });
});
