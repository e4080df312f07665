import { classifyRefusal } from './evm-refusal';

describe('classifyRefusal', () => {
  it('takes a transaction the node already has as accepted', () => {
    expect(classifyRefusal('already known')).toEqual({ kind: 'accepted' });
    expect(classifyRefusal('Known transaction: 0xabc')).toEqual({ kind: 'accepted' });
    // anvil's words for bytes it has in its pool already
    expect(classifyRefusal('transaction already imported')).toEqual({ kind: 'accepted' });
  });

  it('reads a spent nonce, or a version of it already in the pool, as the nonce used', () => {
    expect(classifyRefusal('nonce too low: next nonce 5, tx nonce 4')).toEqual({
      kind: 'nonce-used',
    });
    expect(classifyRefusal('replacement transaction underpriced')).toEqual({
      kind: 'nonce-used',
    });
  });

  it("reads geth's minimum tip out of its refusal", () => {
    const message = 'transaction underpriced: gas tip cap 1000000000, minimum needed 25000000000';
    expect(classifyRefusal(message)).toEqual({
      kind: 'underpriced',
      message,
      minimumTip: 25_000_000_000n,
    });
  });

  it('reads a price refusal that names no figure as underpriced, without a minimum', () => {
    expect(classifyRefusal('transaction underpriced')).toEqual({
      kind: 'underpriced',
      message: 'transaction underpriced',
    });
    const underBaseFee = 'max fee per gas less than block base fee: address 0x1, maxFeePerGas: 1';
    expect(classifyRefusal(underBaseFee)).toEqual({ kind: 'underpriced', message: underBaseFee });
  });

  it('reads anything else as a refusal for good', () => {
    const message = 'insufficient funds for gas * price + value';
    expect(classifyRefusal(message)).toEqual({ kind: 'rejected', message });
  });
});
