import { Keypair, SystemProgram } from '@solana/web3.js';
import { MAX_FEE_ACCOUNTS, priorityFeeFrom, writableAccounts } from './priority-fee';

const policy = { floorMicroLamports: 0, maxMicroLamports: 1_000_000, percentile: 75 };

describe('priorityFeeFrom', () => {
  it('takes the nearest-rank percentile of every reported slot, zeros included', () => {
    // 1..100: the 75th percentile is 75, the 50th 50, the 100th the largest.
    const fees = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(priorityFeeFrom(fees, policy)).toBe(75);
    expect(priorityFeeFrom(fees, { ...policy, percentile: 50 })).toBe(50);
    expect(priorityFeeFrom(fees, { ...policy, percentile: 100 })).toBe(100);
    expect(priorityFeeFrom(fees, { ...policy, percentile: 1 })).toBe(1);
    // Three slots of four paid nothing: the 75th percentile is nothing.
    expect(priorityFeeFrom([0, 0, 9_000, 0], policy)).toBe(0);
    // One in four more paid: the 75th percentile is still the lower level.
    expect(priorityFeeFrom([0, 5_000, 9_000, 5_000], policy)).toBe(5_000);
    expect(priorityFeeFrom([7], policy)).toBe(7);
  });

  it('pays at least the floor, at an idle network or with no data', () => {
    const floored = { ...policy, floorMicroLamports: 1_000 };
    expect(priorityFeeFrom([], floored)).toBe(1_000);
    expect(priorityFeeFrom([0, 0, 0], floored)).toBe(1_000);
    expect(priorityFeeFrom([0, 200, 300, 400], floored)).toBe(1_000);
    expect(priorityFeeFrom([5_000, 5_000], floored)).toBe(5_000);
  });

  it('pays at most the cap, however high the network went', () => {
    const capped = { ...policy, maxMicroLamports: 20_000 };
    expect(priorityFeeFrom([50_000_000, 60_000_000], capped)).toBe(20_000);
    expect(priorityFeeFrom([19_999], capped)).toBe(19_999);
    // A cap equal to the floor pins the price.
    expect(
      priorityFeeFrom([9_000], { ...policy, floorMicroLamports: 10, maxMicroLamports: 10 }),
    ).toBe(10);
  });

  it('ignores what is not a fee (a misbehaving node)', () => {
    expect(priorityFeeFrom([Number.NaN, -5, Infinity, 300], policy)).toBe(300);
  });
});

describe('writableAccounts', () => {
  it('lists the fee payer first, then every write-locked account once', () => {
    const [payer, a, b] = [0, 1, 2].map(() => Keypair.generate().publicKey);
    const instructions = [
      SystemProgram.transfer({ fromPubkey: payer, toPubkey: a, lamports: 1 }),
      SystemProgram.transfer({ fromPubkey: a, toPubkey: b, lamports: 1 }),
    ];
    // The system program is read-only: not listed.
    expect(writableAccounts(payer, instructions)).toEqual([payer, a, b].map((k) => k.toBase58()));
  });

  it('stops at what getRecentPrioritizationFees takes', () => {
    const payer = Keypair.generate().publicKey;
    const instructions = Array.from({ length: 200 }, () =>
      SystemProgram.transfer({
        fromPubkey: payer,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1,
      }),
    );
    expect(writableAccounts(payer, instructions)).toHaveLength(MAX_FEE_ACCOUNTS);
  });
});
