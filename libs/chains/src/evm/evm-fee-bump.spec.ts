import { Transaction, Wallet } from 'ethers';
import {
  bumpedFees,
  cappedFees,
  decodeSigned,
  maxCost,
  replacementFees,
  withMinimumTip,
} from './evm-fee-bump';

const GWEI = 10n ** 9n;
const policy = { bumpPercent: 10, maxFeePerGas: 500n * GWEI };

describe('bumpedFees', () => {
  it('bumps a version the market does not outbid (the node will not take its bytes back)', () => {
    const previous = { maxFeePerGas: 100n, maxPriorityFeePerGas: 10n };
    expect(bumpedFees(previous, { maxFeePerGas: 50n, maxPriorityFeePerGas: 5n }, policy)).toEqual({
      maxFeePerGas: 111n,
      maxPriorityFeePerGas: 12n,
    });
    expect(bumpedFees({ gasPrice: 100n }, { gasPrice: 100n }, policy)).toEqual({ gasPrice: 111n });
  });

  it('offers the market when it asks more, and nothing when the ceiling leaves no valid bump', () => {
    const previous = { maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI };
    const market = { maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    expect(bumpedFees(previous, market, policy)).toEqual(market);
    expect(bumpedFees(previous, market, { bumpPercent: 10, maxFeePerGas: 3n * GWEI })).toBeNull();
  });
});

describe('replacementFees', () => {
  it('re-prices an EIP-1559 transaction from the market when the market asks more', () => {
    const next = replacementFees(
      { maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: 1n * GWEI },
      { maxFeePerGas: 201n * GWEI, maxPriorityFeePerGas: 1n * GWEI },
      policy,
    );
    // The priority fee must rise too: a node refuses a replacement that does not bump both.
    expect(next).toEqual({ maxFeePerGas: 201n * GWEI, maxPriorityFeePerGas: 1_100_000_001n });
  });

  it('raises both fields by at least the bump even when the market asks only a little more', () => {
    const next = replacementFees(
      { maxFeePerGas: 100n, maxPriorityFeePerGas: 10n },
      { maxFeePerGas: 101n, maxPriorityFeePerGas: 10n },
      { bumpPercent: 10, maxFeePerGas: GWEI },
    );
    expect(next).toEqual({ maxFeePerGas: 111n, maxPriorityFeePerGas: 12n });
  });

  it('leaves a transaction that already offers what the market asks', () => {
    const previous = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    expect(replacementFees(previous, { ...previous }, policy)).toBeNull();
    expect(
      replacementFees(previous, { maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: GWEI }, policy),
    ).toBeNull();
  });

  it('offers the ceiling when the market is above it, and nothing once the ceiling is reached', () => {
    const market = { maxFeePerGas: 900n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    const first = replacementFees(
      { maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: 1n * GWEI },
      market,
      policy,
    );
    expect(first).toEqual({ maxFeePerGas: 500n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
    expect(replacementFees(first!, market, policy)).toBeNull();
  });

  it('re-prices a legacy transaction by its gas price', () => {
    expect(replacementFees({ gasPrice: 10n }, { gasPrice: 50n }, policy)).toEqual({
      gasPrice: 50n,
    });
    expect(replacementFees({ gasPrice: 100n }, { gasPrice: 101n }, policy)).toEqual({
      gasPrice: 111n,
    });
    expect(replacementFees({ gasPrice: 100n }, { gasPrice: 100n }, policy)).toBeNull();
    expect(
      replacementFees({ gasPrice: 480n * GWEI }, { gasPrice: 600n * GWEI }, policy),
    ).toBeNull();
  });
});

describe('withMinimumTip', () => {
  it('raises the tip to the minimum and the fee cap by as much', () => {
    const market = { maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI };
    expect(withMinimumTip(market, 25n * GWEI)).toEqual({
      maxFeePerGas: 27n * GWEI,
      maxPriorityFeePerGas: 25n * GWEI,
    });
    expect(withMinimumTip({ gasPrice: 2n * GWEI }, 5n * GWEI)).toEqual({ gasPrice: 5n * GWEI });
  });

  it('leaves fees that already pay the minimum as they are', () => {
    const market = { maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    expect(withMinimumTip(market, GWEI)).toBe(market);
    expect(withMinimumTip({ gasPrice: 9n }, 9n)).toEqual({ gasPrice: 9n });
  });
});

describe('cappedFees', () => {
  it('holds both fields under the ceiling', () => {
    expect(cappedFees({ maxFeePerGas: 9n, maxPriorityFeePerGas: 8n }, 5n)).toEqual({
      maxFeePerGas: 5n,
      maxPriorityFeePerGas: 5n,
    });
    expect(cappedFees({ gasPrice: 3n }, 5n)).toEqual({ gasPrice: 3n });
  });
});

describe('decodeSigned', () => {
  it('reads back what a signed transaction asks and offers', async () => {
    const wallet = Wallet.createRandom();
    const signed = await wallet.signTransaction(
      Transaction.from({
        type: 2,
        chainId: 31337,
        to: '0x000000000000000000000000000000000000dEaD',
        data: '0x1234',
        nonce: 7,
        gasLimit: 50_000n,
        maxFeePerGas: 30n,
        maxPriorityFeePerGas: 2n,
      }),
    );
    expect(decodeSigned(signed)).toEqual({
      unsigned: {
        to: '0x000000000000000000000000000000000000dEaD',
        data: '0x1234',
        gasLimit: 50_000n,
        nonce: 7n,
      },
      fees: { maxFeePerGas: 30n, maxPriorityFeePerGas: 2n },
    });
  });
});

describe('maxCost', () => {
  it('is the gas limit at the fee cap (EIP-1559) or at the gas price (legacy)', () => {
    expect(maxCost(21_000n, { maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI })).toBe(
      63_000n * GWEI,
    );
    expect(maxCost(100n, { gasPrice: 7n })).toBe(700n);
  });
});
