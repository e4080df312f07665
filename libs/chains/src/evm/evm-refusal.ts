/** What the node said to a signed transaction. */
export type BroadcastResult =
  | { kind: 'accepted' }
  /** The wallet's nonce is past this transaction's, or its pool holds another version of it. */
  | { kind: 'nonce-used' }
  /**
   * Priced under what the node takes now: a tip under its minimum (`minimumTip` when it said
   * how much), a fee cap under the block's base fee, or a pool full of better-paying ones.
   * The same transaction at higher fees would be taken.
   */
  | { kind: 'underpriced'; message: string; minimumTip?: bigint }
  /**
   * The wallet cannot pay for it now (gas limit times fee cap, plus value): it may land once
   * the wallet is funded again.
   */
  | { kind: 'insufficient-funds'; message: string }
  /**
   * The node holds as many of the sender's pending transactions as it takes from one sender:
   * nothing is wrong with this one, and the node takes it once earlier ones are mined. Its
   * bytes are sent again then, neither re-priced nor given up.
   */
  | { kind: 'pool-limit'; message: string }
  /**
   * Refused for good: it will never land as it is. `unrecognised` when the words are none this
   * classifier knows (counted, so they can be found and taught).
   */
  | { kind: 'rejected'; message: string; unrecognised?: true };

/**
 * geth's (and most clients') words for a transaction that will never be taken as it is: an
 * intrinsic gas or size limit, a bad signature or chain id, a fee cap under its own tip, a fee
 * over the node's cap (`--rpc.txfeecap`), a type the node does not take.
 */
const PERMANENT_REFUSALS = [
  'intrinsic gas too low',
  'exceeds block gas limit',
  'gas limit reached',
  'invalid sender',
  'invalid chain id',
  'only replay-protected',
  'oversized data',
  'not supported',
  'higher than max fee',
  'tip higher than fee cap',
  'exceeds the configured cap',
  'nonce max',
];

/**
 * geth's words for a sender over a pool's limit on one account (go-ethereum core/txpool/
 * errors.go): `ErrAccountLimitExceeded`, "account limit exceeded: pooled N txs" (a new nonce
 * past the account's slots, core/txpool/validation.go), and `ErrInflightTxLimitReached`, "in-flight
 * transaction limit reached for delegated accounts" (an EIP-7702 delegated account holds one
 * pending transaction at a time, core/txpool/legacypool/legacypool.go). Both take a replacement
 * of a pending nonce, and a new one once the pending ones are mined.
 */
const POOL_LIMITS = ['account limit exceeded', 'in-flight transaction limit reached'];

/** geth (and bor, Polygon's fork) naming the tip it asks: "... minimum needed 25000000000". */
const MINIMUM_TIP = /minimum needed (\d+)/i;

/**
 * Reads a node's refusal of `eth_sendRawTransaction` (geth's and anvil's words; other clients
 * mostly reuse geth's).
 */
export function classifyRefusal(message: string): BroadcastResult {
  const text = message.toLowerCase();
  if (
    text.includes('already known') ||
    text.includes('known transaction') ||
    text.includes('already imported')
  ) {
    return { kind: 'accepted' };
  }
  if (text.includes('nonce too low') || text.includes('replacement transaction underpriced')) {
    return { kind: 'nonce-used' };
  }
  if (POOL_LIMITS.some((words) => text.includes(words))) return { kind: 'pool-limit', message };
  // geth: "insufficient funds for gas * price + value" (anvil capitalises it) and "insufficient
  // funds for intrinsic transaction cost"; Erigon and Nethermind ("InsufficientFunds") alike.
  if (text.includes('insufficient funds') || text.includes('insufficientfunds')) {
    return { kind: 'insufficient-funds', message };
  }
  if (
    text.includes('underpriced') ||
    text.includes('less than block base fee') ||
    text.includes('txpool is full')
  ) {
    const minimum = MINIMUM_TIP.exec(message)?.[1];
    return minimum === undefined
      ? { kind: 'underpriced', message }
      : { kind: 'underpriced', message, minimumTip: BigInt(minimum) };
  }
  return PERMANENT_REFUSALS.some((words) => text.includes(words))
    ? { kind: 'rejected', message }
    : { kind: 'rejected', message, unrecognised: true };
}
