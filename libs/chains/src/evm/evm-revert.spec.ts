import { Interface, makeError } from 'ethers';
import { revertToAppError } from './evm-revert';

/** A revert as ethers throws it from a call or gas estimate. */
function revert(data: string | null, reason: string | null): Error {
  return makeError('execution reverted', 'CALL_EXCEPTION', {
    action: 'estimateGas',
    data,
    reason,
    transaction: { to: '0x' + '1'.repeat(40), data: '0x' + 'ab'.repeat(2_000) },
    invocation: null,
    revert: null,
  });
}

describe('revertToAppError', () => {
  it("words an error none of our contracts declare, keeping ethers' report for the log", () => {
    const data = new Interface(['error Paused()']).encodeErrorResult('Paused', []);
    const error = revertToAppError(revert(data, null))!;
    expect(error.code).toBe('BAD_GATEWAY');
    // Not one of our contracts' errors: nothing decodes it.
    expect(error.message).toBe('The contract reverted the transaction.');
    expect(error.detail).toMatch(/^execution reverted/);
    expect(error.detail.length).toBeLessThanOrEqual(1_000);
  });

  it('quotes a reason string in words only, never the JSON a node put in it', () => {
    expect(revertToAppError(revert(null, 'Pausable: paused'))!.message).toBe(
      'The contract reverted the transaction (Pausable: paused).',
    );
    expect(revertToAppError(revert(null, '{"x":[1]}'))!.message).toBe(
      'The contract reverted the transaction.',
    );
  });

  it("maps our contracts' errors to the contract statuses", () => {
    const data = new Interface(['error MaxSupplyReached(uint256)']).encodeErrorResult(
      'MaxSupplyReached',
      [10],
    );
    const error = revertToAppError(revert(data, null))!;
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toBe('The collection has reached its max supply (10).');
    expect(error.detail).toMatch(/^execution reverted/);
  });
});
