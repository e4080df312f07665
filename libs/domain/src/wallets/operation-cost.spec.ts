import { evmOperationCost, operationsLeft, solanaOperationCost } from './operation-cost';

const GWEI = 1_000_000_000n;

describe('evmOperationCost', () => {
  it('is 200k gas at the fee cap, or at the gas price on a legacy network', () => {
    expect(evmOperationCost({ maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI })).toBe(
      600_000n * GWEI,
    );
    expect(evmOperationCost({ gasPrice: 5n * GWEI })).toBe(1_000_000n * GWEI);
  });
});

describe('solanaOperationCost', () => {
  it("is two signatures' fees and the rent of an item's mint and its holder's account", () => {
    // The chain's rent: (128 + size) * 6960 lamports (3480 per byte-year, two years exempt).
    const rentOf = (size: number) => BigInt(128 + size) * 6_960n;
    expect(solanaOperationCost(rentOf)).toBe(10_000n + 5_066_880n + 2_074_080n);
  });
});

describe('operationsLeft', () => {
  it('is the whole number of operations the balance pays for', () => {
    expect(operationsLeft(1_000n, 300n)).toBe(3);
    expect(operationsLeft(900n, 300n)).toBe(3);
    expect(operationsLeft(299n, 300n)).toBe(0);
    expect(operationsLeft(0n, 300n)).toBe(0);
  });

  it('is null when the balance or the cost is unknown', () => {
    expect(operationsLeft(null, 300n)).toBeNull();
    expect(operationsLeft(1_000n, null)).toBeNull();
    expect(operationsLeft(1_000n, 0n)).toBeNull();
  });

  it('stays a safe integer on a chain that charges next to nothing', () => {
    expect(operationsLeft(10n ** 30n, 1n)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
