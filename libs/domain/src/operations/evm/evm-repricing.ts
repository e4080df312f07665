import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  EvmAdapter,
  bumpedFees,
  decodeSigned,
  feesJson,
  maxCost,
  replacementFees,
  type EvmNetworkDefinition,
} from '@app/chains';
import { OperationRepository, type OperationEntity } from '@app/database';
import { WalletKeys } from '../wallet-keys';
import { SigningPolicies } from '../../policies/signing-policies';
import { feePolicyOf } from './evm-fee-policy';

/** Why a transaction is signed again: unmined while the market asks more, or refused its price. */
export type RepriceReason = 'stuck' | 'refused';

/**
 * Re-pricing of a waiting EVM transaction: a new version, same nonce, higher fees, stored
 * before it is sent (any version may be mined; whichever is, is adopted).
 */
@Injectable()
export class EvmRepricing {
  private readonly logger = new Logger(EvmRepricing.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly evm: EvmAdapter,
    private readonly operations: OperationRepository,
    private readonly keys: WalletKeys,
    private readonly policies: SigningPolicies,
  ) {}

  /**
   * Signs the transaction again with the same nonce at current fees and stores it (not sent
   * yet): a `stuck` version only when the market asks more than it offers; one the node
   * `refused` for its price at the market's fees (with the node's minimum tip, once it named
   * one) or the previous ones bumped, whichever is more. Null when no replacement is called for
   * or the ceiling (the deployment's, or the account's `max_fee_gwei`) leaves no room, or what
   * it could cost more than the version it replaces passes the account's daily cap; 'moved-on'
   * when another worker replaced or settled it first.
   */
  async replace(
    network: EvmNetworkDefinition,
    operation: OperationEntity,
    why: RepriceReason,
  ): Promise<OperationEntity | null | 'moved-on'> {
    const { unsigned, fees: previous } = decodeSigned(operation.signedTx!);
    const [market, signingPolicy] = await Promise.all([
      this.evm.fees(network),
      this.policies.of(operation.accountId),
    ]);
    const policy = feePolicyOf(this.config, network, signingPolicy);
    const fees =
      why === 'stuck'
        ? replacementFees(previous, market, policy)
        : bumpedFees(previous, market, policy);
    if (!fees) return null;
    // Only one version can be mined: the day's cap counts what this one may cost beyond what
    // the operation counted already (the repository computes the difference).
    const overCap = await this.policies.reserve(
      operation,
      signingPolicy,
      network,
      maxCost(unsigned.gasLimit, fees),
    );
    if (overCap) {
      this.logger.warn({
        msg: 'Replacement held back',
        operationId: operation.id,
        why: overCap.message,
      });
      return null;
    }
    const signed = await this.keys.withEvmKey(operation.accountId, (key) =>
      this.evm.sign(network, key, unsigned, fees),
    );
    const stored = await this.operations.replaceSigned(operation.id, operation.txHash!, {
      signedTx: signed.signedTx,
      txHash: signed.hash,
      fees: feesJson(fees),
    });
    if (!stored) return 'moved-on';
    this.logger.warn({
      msg: why === 'stuck' ? 'Stuck transaction re-priced' : 'Refused transaction re-priced',
      operationId: operation.id,
      nonce: String(unsigned.nonce),
      previousTxHash: operation.txHash,
      txHash: signed.hash,
      fees: feesJson(fees),
    });
    return { ...operation, status: 'signed', signedTx: signed.signedTx, txHash: signed.hash };
  }
}
