import { NETWORKS, isNetwork } from './networks';

describe('network names', () => {
  it("are the spec's 22 (section 2.1), accepted exactly: the contract's list", () => {
    // Derived from the EVM network table: a row added there is a name the API accepts, so
    // the contract's list is pinned here, where such a change must be made on purpose.
    expect(NETWORKS).toEqual([
      'solana',
      'evm',
      'ethereum',
      'sepolia',
      'base',
      'polygon',
      'bsc',
      'monad',
      'sei',
      'blast',
      'sonic',
      'linea',
      'scroll',
      'mantle',
      'zora',
      'optimism',
      'arbitrum',
      'avalanche',
      'boba',
      'metis',
      'bera',
      'celo',
    ]);
  });

  it('accepts no other value, whatever its case or type', () => {
    for (const value of ['Base', 'base ', 'mainnet', 'toString', '', 1, null, undefined]) {
      expect(isNetwork(value)).toBe(false);
    }
    expect(isNetwork('base')).toBe(true);
  });
});
