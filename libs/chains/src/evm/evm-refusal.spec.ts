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

  it("reads a wallet that cannot pay as insufficient funds, in geth's and anvil's words", () => {
    for (const message of [
      'insufficient funds for gas * price + value: balance 0, tx cost 1, overshot 1',
      'Insufficient funds for gas * price + value',
      'insufficient funds for intrinsic transaction cost',
      'InsufficientFunds, Balance is 0 less than sending value + gas 1',
    ]) {
      expect(classifyRefusal(message)).toEqual({ kind: 'insufficient-funds', message });
    }
  });

  it("reads geth's limit on one sender's pending transactions as a pool limit, not a refusal", () => {
    for (const message of [
      'account limit exceeded: pooled 64 txs',
      'in-flight transaction limit reached for delegated accounts',
    ]) {
      expect(classifyRefusal(message)).toEqual({ kind: 'pool-limit', message });
    }
  });

  it('reads a full pool as a price refusal: a better-paying version would be taken', () => {
    expect(classifyRefusal('txpool is full')).toMatchObject({ kind: 'underpriced' });
  });

  it('reads the known permanent refusals as refusals for good', () => {
    for (const message of ['intrinsic gas too low', 'exceeds block gas limit', 'invalid sender']) {
      expect(classifyRefusal(message)).toEqual({ kind: 'rejected', message });
    }
  });

  it('marks words it does not know as unrecognised refusals, so they can be counted', () => {
    const message = 'the node is having a bad day';
    expect(classifyRefusal(message)).toEqual({ kind: 'rejected', message, unrecognised: true });
  });
});
