import { planGapSends, type GapSend, type InFlightSend } from './gap-plan';

const held = (nonce: bigint): InFlightSend => ({ nonce, signedTx: `0xstored${nonce}` });

/** A plan as one word a nonce: `s5` sends nonce 5's stored bytes, `f5` fills nonce 5. */
function shape(plan: GapSend[] | null): string[] | null {
  return plan && plan.map((send) => `${'filler' in send ? 'f' : 's'}${send.nonce}`);
}

describe('planGapSends', () => {
  it('plans nothing when nothing of the wallet is in flight (the node forgot it)', () => {
    expect(planGapSends(3n, 6n, [], 64)).toBeNull();
  });

  it("sends each missing nonce's stored bytes, in nonce order", () => {
    const plan = planGapSends(3n, 6n, [held(5n), held(3n), held(4n)], 64);
    expect(plan).toEqual([
      { nonce: 3n, signedTx: '0xstored3' },
      { nonce: 4n, signedTx: '0xstored4' },
      { nonce: 5n, signedTx: '0xstored5' },
    ]);
  });

  it('fills the nonces no in-flight operation holds', () => {
    expect(shape(planGapSends(3n, 7n, [held(4n), held(6n)], 64))).toEqual(['f3', 's4', 'f5', 's6']);
  });

  it('fills a gap none of whose nonces is held, while the wallet has others in flight', () => {
    expect(shape(planGapSends(3n, 5n, [held(9n)], 64))).toEqual(['f3', 'f4']);
  });

  it('fills an operation that holds its nonce without stored bytes', () => {
    const unsigned: InFlightSend = { nonce: 3n, signedTx: null };
    expect(shape(planGapSends(3n, 4n, [unsigned], 64))).toEqual(['f3']);
  });

  it('leaves out in-flight operations outside the gap', () => {
    expect(shape(planGapSends(3n, 5n, [held(1n), held(4n), held(5n), held(8n)], 64))).toEqual([
      'f3',
      's4',
    ]);
  });

  it('fills at most maxFillers nonces and stops at the next unheld one', () => {
    const inFlight = [held(4n), held(7n), held(8n)];
    // Two fillers (3, 5); 6 would be the third, so 7 and 8 wait behind it and are not sent.
    expect(shape(planGapSends(3n, 9n, inFlight, 2))).toEqual(['f3', 's4', 'f5']);
  });

  it('sends every stored nonce up to the first filler past the limit', () => {
    expect(shape(planGapSends(3n, 7n, [held(3n), held(4n), held(6n)], 0))).toEqual(['s3', 's4']);
  });

  it('is empty for an empty range', () => {
    expect(planGapSends(5n, 5n, [held(5n)], 64)).toEqual([]);
  });
});
