import { nextAfterGap, planNonceHealing } from './nonce-healing';

describe('planNonceHealing', () => {
  it("starts from the chain's count when the wallet has no ledger row yet", () => {
    expect(planNonceHealing(null, 0n)).toEqual({ kind: 'in-step', next: 0n });
    expect(planNonceHealing(null, 7n)).toEqual({ kind: 'in-step', next: 7n });
  });

  it('goes on from the ledger when it agrees with the chain', () => {
    expect(planNonceHealing(5n, 5n)).toEqual({ kind: 'in-step', next: 5n });
  });

  it('jumps up to the chain when the wallet was used elsewhere (ledger behind)', () => {
    expect(planNonceHealing(5n, 9n)).toEqual({ kind: 'up', recorded: 5n, next: 9n });
    expect(planNonceHealing(0n, 1n)).toEqual({ kind: 'up', recorded: 0n, next: 1n });
  });

  it('closes the gap the chain misses when the ledger is ahead', () => {
    expect(planNonceHealing(9n, 5n)).toEqual({ kind: 'down', from: 5n, to: 9n });
    expect(planNonceHealing(1n, 0n)).toEqual({ kind: 'down', from: 0n, to: 1n });
  });

  it('compares as numbers past 2^53', () => {
    const big = 2n ** 60n;
    expect(planNonceHealing(big + 1n, big)).toEqual({ kind: 'down', from: big, to: big + 1n });
    expect(planNonceHealing(big, big)).toEqual({ kind: 'in-step', next: big });
  });
});

describe('nextAfterGap', () => {
  const gap = { kind: 'down', from: 5n, to: 9n } as const;

  it("keeps the ledger's nonce when the gap's operations are in flight", () => {
    expect(nextAfterGap(gap, true)).toBe(9n);
  });

  it("starts from the chain's count when nothing is in flight (a reset node)", () => {
    expect(nextAfterGap(gap, false)).toBe(5n);
  });
});
