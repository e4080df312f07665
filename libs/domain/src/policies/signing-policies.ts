import { Injectable, Logger } from '@nestjs/common';
import { TtlCache, boundedText, type AssetIntent } from '@app/common';
import { ChainRegistry, NetworkRegistry, type NetworkDefinition } from '@app/chains';
import { SigningPolicyRepository, UnitOfWork, type WorkScope } from '@app/database';
import { SigningPolicyChanges } from '@app/queue';
import { AuditTrail } from '../audit/audit-trail';
import { fromBaseUnits } from '../assets/amounts';
import {
  PolicyViolation,
  dailyCapUnits,
  firstNamed,
  hasRules,
  intentViolation,
  readSigningPolicy,
  type PolicyContext,
  type SigningPolicy,
} from './signing-policy';

/**
 * How stale a cached policy may be if a change's message is lost (Redis away). Every write reads
 * its account's policy at the API and again before signing: read from Postgres each time, that
 * was 0.4-0.7 ms of CPU a mint (bench:mint-cost, two runs each: EVM 10.0 -> 10.7 ms, Solana
 * 12.6 -> 13.0; cached, 10.1 and 12.3).
 */
const POLICY_TTL_MS = 5_000;

/**
 * An account's signing policies (docs/security.md#signing-policies): set through a session,
 * checked at the API where a request already shows the breach (403), and in the worker just
 * before signing, the last line of defence (the operation fails with the rule). Every breach is
 * an audit event.
 */
@Injectable()
export class SigningPolicies {
  private readonly logger = new Logger(SigningPolicies.name);
  private readonly context: PolicyContext;
  private readonly cached = new TtlCache<SigningPolicy>(POLICY_TTL_MS);
  private hearing?: Promise<void>;
  private caching = false;

  constructor(
    networks: NetworkRegistry,
    chains: ChainRegistry,
    private readonly policies: SigningPolicyRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly audit: AuditTrail,
    private readonly changes: SigningPolicyChanges,
  ) {
    this.context = {
      resolveNetwork: (network) => networks.resolve(network),
      nativeDecimals: (network) => networks.resolve(network).currency.decimals,
      canonicalAddress: (address) =>
        chains.adapter('evm').normalizeAddress(address) ??
        chains.adapter('solana').normalizeAddress(address),
    };
  }

  /**
   * The account's policy; `{}` (no rules) when it never set one. Cached per process once this
   * process hears of changes: a change reaches every process as soon as the news arrives, and
   * at worst after POLICY_TTL_MS.
   */
  async of(accountId: string): Promise<SigningPolicy> {
    this.hearChanges();
    const cached = this.cached.get(accountId);
    if (cached) return cached;
    const stored: SigningPolicy | null = await this.policies.find(accountId);
    const policy = stored ?? {};
    if (this.caching) this.cached.set(accountId, policy);
    return policy;
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
    this.forget(accountId);
    await this.changes.publish(accountId);
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
        ? new PolicyViolation(
            first.rule,
            firstNamed(
              refused.map(({ index, violation }) => `${entryName(index)}: ${violation.detail}`),
            ),
            network.network,
          )
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
   * Counts the most a signing of the operation can cost against its network's daily cap
   * (within `scope`, when given), beyond what the operation counted already that day: null
   * when counted (or no cap), else the violation (nothing counted).
   */
  async reserve(
    operation: { id: string; accountId: string },
    policy: SigningPolicy,
    network: NetworkDefinition,
    amount: bigint,
    scope?: WorkScope,
  ): Promise<PolicyViolation | null> {
    const { decimals, symbol } = network.currency;
    const cap = dailyCapUnits(policy, network.network, decimals);
    if (cap === undefined) return null;
    const reservation = {
      accountId: operation.accountId,
      operationId: operation.id,
      network: network.network,
      day: utcDay(),
      amount,
      cap,
    };
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

  /** Caching starts once changes are heard; until then every read goes to Postgres. */
  private hearChanges(): void {
    this.hearing ??= this.changes
      .listen((accountId) => this.forget(accountId))
      .then(
        () => {
          this.caching = true;
        },
        (error: unknown) => {
          this.logger.warn(`Not caching signing policies: ${boundedText(error, 300)}`);
        },
      );
  }

  private forget(accountId: string): void {
    this.cached.delete(accountId);
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
