import { awaitingFundsReason, type FundsShortfall } from '@app/chains';
import { AWAITING_FUNDS } from '@app/queue';
import { RetryLater } from './retry-later';

/**
 * A signed operation whose wallet cannot pay for its transaction now: retried with a longer
 * backoff (the queue's backoff knows it by name), its reason naming the wallet; past the
 * operation's deadline it may be failed, where its transaction provably cannot land.
 */
export class AwaitingFunds extends RetryLater {
  constructor(readonly shortfall: FundsShortfall) {
    super(awaitingFundsReason(shortfall));
    this.name = AWAITING_FUNDS;
  }
}
