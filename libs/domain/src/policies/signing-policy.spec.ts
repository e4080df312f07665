import { AppError, type AssetIntent } from '@app/common';
import { getAddress } from 'ethers';
import {
  PolicyViolation,
  dailyCapUnits,
  feeCeilingWei,
  hasRules,
  intentViolation,
  readSigningPolicy,
  type PolicyContext,
} from './signing-policy';

const EVM_A = '0x' + 'ab'.repeat(20);
const EVM_B = '0x' + 'cd'.repeat(20);
const SOLANA_A = '11111111111111111111111111111112';
const SIGNER = getAddress('0x' + 'ef'.repeat(20));

const context: PolicyContext = {
  resolveNetwork: (network) =>
    network === 'solana'
      ? { network: 'solana', family: 'solana' }
      : { network: network === 'evm' ? 'base' : network, family: 'evm' },
  nativeDecimals: (network) => (network === 'solana' ? 9 : 18),
  canonicalAddress: (address) => {
    if (/^0x[0-9a-fA-F]{40}$/.test(address)) return getAddress(address);
    return /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address) ? address : null;
  },
};

function problemsOf(body: unknown): string {
  try {
    readSigningPolicy(body, context);
  } catch (error) {
    if (error instanceof AppError && error.code === 'BAD_REQUEST') return error.message;
    throw error;
  }
  throw new Error('read without a problem');
}

describe('readSigningPolicy', () => {
  it('reads every rule into its stored form: networks resolved, addresses canonical', () => {
    const policy = readSigningPolicy(
      {
        max_fee_gwei: { evm: 50, polygon: '1.5' },
        daily_native_cap: { base: '0.50', solana: '2' },
        allowed_recipients: [EVM_A, EVM_A.toUpperCase().replace('0X', '0x'), SOLANA_A],
        allowed_contracts: [EVM_B],
      },
      context,
    );
    expect(policy).toEqual({
      max_fee_gwei: { base: 50, polygon: 1.5 },
      daily_native_cap: { base: '0.5', solana: '2' },
      allowed_recipients: [getAddress(EVM_A), SOLANA_A],
      allowed_contracts: [getAddress(EVM_B)],
    });
  });

  it('reads {} as no rules', () => {
    const policy = readSigningPolicy({}, context);
    expect(policy).toEqual({});
    expect(hasRules(policy)).toBe(false);
  });

  it('names every problem by its path in one 400', () => {
    const message = problemsOf({
      max_fee_gwei: { solana: 5, base: -1, moon: 3 },
      daily_native_cap: { base: 1, ethereum: '0.0000000000000000001' },
      allowed_recipients: ['nope', EVM_A],
      allowed_contracts: 'all',
      max_gas: 1,
    });
    expect(message).toContain('max_gas is not a policy');
    expect(message).toContain('max_fee_gwei.solana: Solana fees are not priced per gas');
    expect(message).toContain('max_fee_gwei.base must be a positive decimal number');
    expect(message).toContain('max_fee_gwei.moon: moon is not a network');
    expect(message).toContain('daily_native_cap.base must be a decimal string');
    expect(message).toContain('daily_native_cap.ethereum has more than 18 fractional digits');
    expect(message).toContain('allowed_recipients[0] is not a Solana or EVM address');
    expect(message).toContain('allowed_contracts must be an array of addresses');
    expect(message.match(/Invalid request body\./g)).toHaveLength(1);
  });

  it('refuses a network named twice through the evm alias', () => {
    expect(problemsOf({ max_fee_gwei: { evm: 5, base: 6 } })).toContain('named twice');
  });

  it('refuses a body that is not an object', () => {
    expect(problemsOf([1])).toContain('must be a JSON object');
  });
});

describe('intentViolation', () => {
  const policy = readSigningPolicy(
    { allowed_recipients: [EVM_A], allowed_contracts: [EVM_B] },
    context,
  );
  const mint = (asset: string, recipient: string) =>
    ({ kind: 'token.mint', asset: getAddress(asset), recipient, amount: '1' }) as const;

  it('lets through a write to an allowed contract and recipient', () => {
    expect(intentViolation(policy, 'base', mint(EVM_B, getAddress(EVM_A)), SIGNER)).toBeNull();
  });

  it('names allowed_contracts for a contract not listed', () => {
    const violation = intentViolation(policy, 'base', mint(EVM_A, getAddress(EVM_A)), SIGNER);
    expect(violation).toBeInstanceOf(PolicyViolation);
    expect(violation?.rule).toBe('allowed_contracts');
    expect(violation?.status).toBe(403);
    expect(violation?.message).toMatch(/^Signing policy allowed_contracts: /);
  });

  it('names allowed_recipients for a recipient not listed, in a batch too', () => {
    const batch: AssetIntent = {
      kind: 'nft.mintBatch',
      collection: getAddress(EVM_B),
      recipients: [getAddress(EVM_A), getAddress(EVM_B)],
    };
    const violation = intentViolation(policy, 'base', batch, SIGNER);
    expect(violation?.rule).toBe('allowed_recipients');
    expect(violation?.detail).toContain(getAddress(EVM_B));
    expect(violation?.aboutEntries).toBe(true);
  });

  it('always lets the signing wallet itself receive', () => {
    expect(intentViolation(policy, 'base', mint(EVM_B, SIGNER), SIGNER)).toBeNull();
  });

  it('lets a new asset be created whatever the contract list', () => {
    const create = {
      kind: 'nft.create',
      name: 'n',
      symbol: 's',
      metadataUri: 'u',
      maxSupply: '0',
      sellerFeeBps: 0,
    } as const;
    expect(intentViolation(policy, 'base', create, SIGNER)).toBeNull();
  });
});

describe('per-network limits', () => {
  const policy = readSigningPolicy(
    { max_fee_gwei: { base: 1.5 }, daily_native_cap: { solana: '0.25' } },
    context,
  );

  it('reads the fee ceiling in wei, only where one is set', () => {
    expect(feeCeilingWei(policy, 'base')).toBe(1_500_000_000n);
    expect(feeCeilingWei(policy, 'polygon')).toBeUndefined();
  });

  it('reads the daily cap in base units', () => {
    expect(dailyCapUnits(policy, 'solana', 9)).toBe(250_000_000n);
    expect(dailyCapUnits(policy, 'base', 18)).toBeUndefined();
  });
});
