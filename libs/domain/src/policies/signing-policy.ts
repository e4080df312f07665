import { AppError, INVALID_BODY_MESSAGE, type AssetIntent } from '@app/common';
import { isNetwork, type ConcreteNetwork, type Network } from '@app/config';
import { fromBaseUnits, toBaseUnits } from '../assets/amounts';

/**
 * An account's signing policies (contract: "Deployment topologies and signers"; docs/security.md
 * #signing-policies), as `GET/PUT /account/policies` show them and as they are stored: every
 * network concrete (`evm` resolved), every address canonical. An absent rule is no rule.
 */
export interface SigningPolicy {
  /** EVM networks: the most a transaction may offer per gas (its max fee), in gwei. */
  max_fee_gwei?: Partial<Record<ConcreteNetwork, number>>;
  /** The most native currency (whole units, a decimal string) signed away in a UTC day. */
  daily_native_cap?: Partial<Record<ConcreteNetwork, string>>;
  /** The only addresses the wallets may mint or transfer to (besides the wallet itself). */
  allowed_recipients?: string[];
  /** The only existing contracts (EVM) or mints and collections (Solana) the wallets may write to. */
  allowed_contracts?: string[];
}

export type PolicyRule = keyof SigningPolicy;

const RULES: readonly PolicyRule[] = [
  'max_fee_gwei',
  'daily_native_cap',
  'allowed_recipients',
  'allowed_contracts',
];
const MAX_LISTED_ADDRESSES = 1_000;
const MAX_NAMED_PROBLEMS = 20;
const GWEI_DECIMALS = 9;

/** A write the account's policies forbid: 403, its message starting with the rule. */
export class PolicyViolation extends AppError {
  constructor(
    readonly rule: PolicyRule,
    readonly detail: string,
    readonly network: ConcreteNetwork,
  ) {
    super('FORBIDDEN', `Signing policy ${rule}: ${detail}`);
    this.name = 'PolicyViolation';
  }

  /** Whether it is about some entries of a carrier, not all: then splitting it isolates them. */
  get aboutEntries(): boolean {
    return this.rule === 'allowed_recipients';
  }
}

/** What reading a policy needs of the deployment: its networks and address formats. */
export interface PolicyContext {
  resolveNetwork(network: Network): { network: ConcreteNetwork; family: 'evm' | 'solana' };
  nativeDecimals(network: ConcreteNetwork): number;
  /** The address in canonical form, or null when it is not an address of either family. */
  canonicalAddress(address: string): string | null;
}

/**
 * Reads a `PUT /account/policies` body into a policy. Every problem is collected and named by
 * its path (the first 20), so one 400 says all that is wrong.
 */
export function readSigningPolicy(body: unknown, context: PolicyContext): SigningPolicy {
  const problems: string[] = [];
  if (!isPlainObject(body)) throw AppError.badRequest('The body must be a JSON object.');
  const policy: SigningPolicy = {};
  for (const key of Object.keys(body)) {
    if (!(RULES as readonly string[]).includes(key)) {
      problems.push(`${key} is not a policy (${RULES.join(', ')}).`);
    }
  }
  if (body.max_fee_gwei !== undefined) {
    policy.max_fee_gwei = readPerNetwork(body.max_fee_gwei, 'max_fee_gwei', problems, context, {
      only: 'evm',
      value: (value, field) => {
        if (typeof value !== 'number' && typeof value !== 'string') {
          throw AppError.badRequest(`${field} must be a number of gwei.`);
        }
        toBaseUnits(value, GWEI_DECIMALS, field);
        return Number(value);
      },
    });
  }
  if (body.daily_native_cap !== undefined) {
    policy.daily_native_cap = readPerNetwork(
      body.daily_native_cap,
      'daily_native_cap',
      problems,
      context,
      {
        value: (value, field, network) => {
          if (typeof value !== 'string') {
            throw AppError.badRequest(`${field} must be a decimal string, such as "0.5".`);
          }
          const decimals = context.nativeDecimals(network);
          return fromBaseUnits(toBaseUnits(value, decimals, field), decimals);
        },
      },
    );
  }
  for (const rule of ['allowed_recipients', 'allowed_contracts'] as const) {
    if (body[rule] !== undefined) policy[rule] = readAddresses(body[rule], rule, problems, context);
  }
  if (problems.length > 0) throw AppError.badRequest(firstNamed(problems));
  return policy;
}

function readPerNetwork<T>(
  value: unknown,
  rule: PolicyRule,
  problems: string[],
  context: PolicyContext,
  read: {
    only?: 'evm';
    value: (value: unknown, field: string, network: ConcreteNetwork) => T;
  },
): Partial<Record<ConcreteNetwork, T>> {
  const result: Partial<Record<ConcreteNetwork, T>> = {};
  if (!isPlainObject(value)) {
    problems.push(`${rule} must be an object keyed by network.`);
    return result;
  }
  for (const [name, entry] of Object.entries(value)) {
    const field = `${rule}.${name}`;
    if (!isNetwork(name)) {
      problems.push(`${field}: ${name} is not a network.`);
      continue;
    }
    const { network, family } = context.resolveNetwork(name);
    if (read.only === 'evm' && family !== 'evm') {
      problems.push(
        `${field}: Solana fees are not priced per gas; the deployment's ` +
          'SOLANA_PRIORITY_FEE_MAX_MICROLAMPORTS bounds them.',
      );
      continue;
    }
    if (network in result) {
      problems.push(`${field}: ${network} is named twice (evm is the default EVM network).`);
      continue;
    }
    try {
      result[network] = read.value(entry, field, network);
    } catch (error) {
      problems.push(messageOf(error));
    }
  }
  return result;
}

function readAddresses(
  value: unknown,
  rule: PolicyRule,
  problems: string[],
  context: PolicyContext,
): string[] {
  if (!Array.isArray(value)) {
    problems.push(`${rule} must be an array of addresses.`);
    return [];
  }
  if (value.length > MAX_LISTED_ADDRESSES) {
    problems.push(`${rule} holds at most ${MAX_LISTED_ADDRESSES} addresses.`);
    return [];
  }
  const addresses = new Set<string>();
  value.forEach((entry: unknown, index) => {
    const canonical = typeof entry === 'string' ? context.canonicalAddress(entry.trim()) : null;
    if (canonical) addresses.add(canonical);
    else problems.push(`${rule}[${index}] is not a Solana or EVM address.`);
  });
  return [...addresses];
}

/**
 * The rule an intent breaks among those the intent itself tells (where it writes, whom it
 * pays), or null. A new asset calls no existing contract, so `allowed_contracts` lets it be
 * created (and then listed, to be minted). The signing wallet itself is always an allowed
 * recipient: minting supply to it sends nothing away.
 */
export function intentViolation(
  policy: SigningPolicy,
  network: ConcreteNetwork,
  intent: AssetIntent,
  signer: string,
): PolicyViolation | null {
  const contract = contractOf(intent);
  if (contract && policy.allowed_contracts && !policy.allowed_contracts.includes(contract)) {
    return new PolicyViolation(
      'allowed_contracts',
      `${contract} is not among the account's allowed contracts.`,
      network,
    );
  }
  const allowed = policy.allowed_recipients;
  if (allowed) {
    const refused = recipientsOf(intent).find(
      (recipient) => recipient !== signer && !allowed.includes(recipient),
    );
    if (refused) {
      return new PolicyViolation(
        'allowed_recipients',
        `${refused} is not among the account's allowed recipients.`,
        network,
      );
    }
  }
  return null;
}

/** The most a transaction on `network` may offer per gas, in wei; undefined without a ceiling. */
export function feeCeilingWei(policy: SigningPolicy, network: ConcreteNetwork): bigint | undefined {
  const gwei = policy.max_fee_gwei?.[network];
  return gwei === undefined ? undefined : toBaseUnits(gwei, GWEI_DECIMALS);
}

/** The day's cap on `network` in base units (wei, lamports); undefined without one. */
export function dailyCapUnits(
  policy: SigningPolicy,
  network: ConcreteNetwork,
  decimals: number,
): bigint | undefined {
  const cap = policy.daily_native_cap?.[network];
  return cap === undefined ? undefined : toBaseUnits(cap, decimals);
}

/** Whether the policy has any rule at all (most accounts have none: nothing to check). */
export function hasRules(policy: SigningPolicy): boolean {
  return RULES.some((rule) => policy[rule] !== undefined);
}

function contractOf(intent: AssetIntent): string | null {
  switch (intent.kind) {
    case 'token.create':
    case 'nft.create':
      return null;
    case 'token.mint':
    case 'token.burn':
    case 'token.transfer':
    case 'token.mintBatch':
      return intent.asset;
    case 'nft.mint':
    case 'nft.transfer':
    case 'nft.burn':
    case 'nft.mintBatch':
      return intent.collection;
  }
}

function recipientsOf(intent: AssetIntent): string[] {
  switch (intent.kind) {
    case 'token.mint':
    case 'token.transfer':
    case 'nft.mint':
    case 'nft.transfer':
      return [intent.recipient];
    case 'token.mintBatch':
    case 'nft.mintBatch':
      return intent.recipients;
    default:
      return [];
  }
}

/** The first 20 parts, joined by spaces, and how many more there are. */
export function firstNamed(parts: string[]): string {
  const named = parts.slice(0, MAX_NAMED_PROBLEMS).join(' ');
  const more = parts.length - MAX_NAMED_PROBLEMS;
  return more > 0 ? `${named} (and ${more} more)` : named;
}

function messageOf(error: unknown): string {
  if (!(error instanceof AppError)) throw error;
  // AppError.badRequest prefixes the generic message; the one 400 adds it once.
  return error.message.replace(`${INVALID_BODY_MESSAGE} `, '');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
