import { Injectable } from '@nestjs/common';
import type { AssetIntent } from '@app/common';
import { ChainRegistry, NetworkRegistry, type NetworkDefinition } from '@app/chains';
import { SigningPolicyRepository, UnitOfWork, type WorkScope } from '@app/database';
import { AuditTrail } from '../audit/audit-trail';
import { fromBaseUnits } from '../assets/amounts';
import {
  PolicyViolation,
  dailyCapUnits,
  hasRules,
  intentViolation,
  readSigningPolicy,
  type PolicyContext,
  type SigningPolicy,
} from './signing-policy';

/** How many refused entries of an airdrop a 403 names. */
const MAX_NAMED_ENTRIES = 20;

/**
 * An account's signing policies (docs/security.md#signing-policies): set through a session,
 * checked at the API where a request already shows the breach (403), and in the worker just
 * before signing, the last line of defence (the operation fails with the rule). Every breach is
 * an audit event.
 */
@Injectable()
export class SigningPolicies {
  private readonly context: PolicyContext;

  constructor(
    networks: NetworkRegistry,
    chains: ChainRegistry,
    private readonly policies: SigningPolicyRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly audit: AuditTrail,
  ) {
    this.context = {
      resolveNetwork: (network) => networks.resolve(network),
      nativeDecimals: (network) => networks.resolve(network).currency.decimals,
      canonicalAddress: (address) =>
        chains.adapter('evm').normalizeAddress(address) ??
        chains.adapter('solana').normalizeAddress(address),
    };
  }

  /** The account's policy; `{}` (no rules) when it never set one. */
  async of(accountId: string, scope?: WorkScope): Promise<SigningPolicy> {
    const stored: SigningPolicy | null = await this.policies.find(accountId, scope);
    return stored ?? {};
  }

  /** Replaces the account's policy with the body's (400 naming each problem), audited. */
  async replace(accountId: string, body: unknown): Promise<SigningPolicy> {
    const policy = readSigningPolicy(body, this.context);
    await this.unitOfWork.run(async (scope) => {
      await this.policies.save(scope, accountId, policy);
      await this.audit.record(
        { accountId, type: 'signing_policy.updated', details: summaryOf(policy) },
        scope,
      );
    });
    return policy;
  }

  /**
   * At the API: refuses (403, audited) a write whose entries break a rule they show (where
   * they write, whom they pay) or whose network's daily cap is already spent. An airdrop's
   * refused entries are named by `entryName`.
   */
  async admit(
    accountId: string,
    network: NetworkDefinition,
    signer: string,
    intents: AssetIntent[],
    entryName?: (index: number) => string,
  ): Promise<void> {
    const policy = await this.of(accountId);
    if (!hasRules(policy)) return;
    const refused = intents.flatMap((intent, index) => {
      const violation = intentViolation(policy, network.network, intent, signer);
      return violation ? [{ index, violation }] : [];
    });
    if (refused.length > 0) {
      const first = refused[0].violation;
      const violation = entryName
        ? new PolicyViolation(first.rule, entriesNamed(refused, entryName), network.network)
        : first;
      return this.refuse(accountId, violation);
    }
    const spent = await this.spentOut(accountId, policy, network);
    if (spent) return this.refuse(accountId, spent);
  }

  /** In the worker: a breach found before signing, recorded; the operation fails with it. */
  async violated(
    accountId: string,
    violation: PolicyViolation,
    operationId: string,
    scope?: WorkScope,
  ): Promise<void> {
    await this.audit.record(
      {
        accountId,
        type: 'signing_policy.violated',
        details: { ...detailsOf(violation), operation_id: operationId, stage: 'worker' },
      },
      scope,
    );
  }

  /**
   * Counts the most a transaction can cost against its network's daily cap (within `scope`,
   * when given): null when counted (or no cap), else the violation (nothing counted).
   */
  async reserve(
    accountId: string,
    policy: SigningPolicy,
    network: NetworkDefinition,
    amount: bigint,
    scope?: WorkScope,
  ): Promise<PolicyViolation | null> {
    const { decimals, symbol } = network.currency;
    const cap = dailyCapUnits(policy, network.network, decimals);
    if (cap === undefined) return null;
    const reservation = { accountId, network: network.network, day: utcDay(), amount, cap };
    const counted = await this.policies.reserve(reservation, scope);
    if (counted) return null;
    return new PolicyViolation(
      'daily_native_cap',
      `this transaction can cost up to ${fromBaseUnits(amount, decimals)} ${symbol}, more than ` +
        `what is left of the day's cap of ${fromBaseUnits(cap, decimals)} ${symbol} on ` +
        `${network.network} (UTC).`,
      network.network,
    );
  }

  private async spentOut(
    accountId: string,
    policy: SigningPolicy,
    network: NetworkDefinition,
  ): Promise<PolicyViolation | null> {
    const { decimals, symbol } = network.currency;
    const cap = dailyCapUnits(policy, network.network, decimals);
    if (cap === undefined) return null;
    const spent = await this.policies.spent(accountId, network.network, utcDay());
    if (spent < cap) return null;
    return new PolicyViolation(
      'daily_native_cap',
      `the day's cap of ${fromBaseUnits(cap, decimals)} ${symbol} on ${network.network} is ` +
        'spent (UTC); it resets at midnight UTC.',
      network.network,
    );
  }

  private async refuse(accountId: string, violation: PolicyViolation): Promise<never> {
    await this.audit.record({
      accountId,
      type: 'signing_policy.violated',
      details: { ...detailsOf(violation), stage: 'api' },
    });
    throw violation;
  }
}

/** Today in UTC, `YYYY-MM-DD`: the day a daily cap counts in. */
function utcDay(): string {
  return new Date().toISOString().slice(0, 10);
}

function entriesNamed(
  refused: { index: number; violation: PolicyViolation }[],
  entryName: (index: number) => string,
): string {
  const named = refused
    .slice(0, MAX_NAMED_ENTRIES)
    .map(({ index, violation }) => `${entryName(index)}: ${violation.detail}`)
    .join(' ');
  const more = refused.length - MAX_NAMED_ENTRIES;
  return more > 0 ? `${named} (and ${more} more)` : named;
}

function detailsOf(violation: PolicyViolation) {
  return { rule: violation.rule, network: violation.network, detail: violation.detail };
}

/** What the audit log keeps of a policy: the per-network rules, the lists' sizes. */
function summaryOf(policy: SigningPolicy) {
  return {
    max_fee_gwei: policy.max_fee_gwei ? JSON.stringify(policy.max_fee_gwei) : null,
    daily_native_cap: policy.daily_native_cap ? JSON.stringify(policy.daily_native_cap) : null,
    allowed_recipients: policy.allowed_recipients?.length ?? null,
    allowed_contracts: policy.allowed_contracts?.length ?? null,
  };
}
