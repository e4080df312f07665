import type { ChainTruth } from './chain-truth';
import type { MintRequest } from './mint-client';

/** The verdict on one chain's mints: what the API said against what the chain holds. */
export interface ChainFigures {
  requests: number;
  /** Requests the API gave an operation id for. */
  accepted: number;
  /** Requests the API refused (4xx) or the client gave up on: never accepted. */
  not_accepted: number;
  confirmed: number;
  failed: number;
  /** Accepted and still not confirmed or failed when the run stopped waiting. */
  unsettled: number;
  /**
   * Accepted, not reported failed, and the recipient holds nothing: an unsettled operation that
   * never landed, or a confirmed one whose mint is not on chain.
   */
  lost: number;
  /** Requests whose write happened more than once or merged with another (see `doubled_by`). */
  doubled: number;
  doubled_by: {
    /** The recipient holds more than the 1 unit it was sent. */
    balance_over_one: number;
    /** The service made more than one operation for the recipient's single request. */
    extra_operations: number;
    /** A confirmed operation whose tx is another confirmed operation's tx. */
    shared_tx: number;
  };
  /** Reported failed, yet the recipient holds the unit: a client would mint it again. */
  failed_but_minted: number;
  /** Supply minted beyond what the recipients hold (units sent somewhere else). */
  stray_supply: string;
  /** Why failed operations failed, and why refused requests were refused, counted. */
  failure_reasons: Record<string, number>;
}

export interface FigureInputs {
  requests: MintRequest[];
  truth: ChainTruth;
  /** The supply the token was created with (the managed wallet's). */
  initialSupply: bigint;
  /** Operations the service's database holds for this token's mints, per recipient. */
  operationsPerRecipient: Map<string, number>;
  /** How a recipient address is compared (EVM addresses are case-insensitive). */
  normalize: (address: string) => string;
}

export function chainFigures(inputs: FigureInputs): ChainFigures {
  const { requests, truth, normalize } = inputs;
  const balanceOf = (r: MintRequest) => truth.balances.get(r.recipient) ?? 0n;
  const accepted = requests.filter((r) => r.operationId);
  const confirmed = accepted.filter((r) => r.status === 'confirmed');
  const failed = accepted.filter((r) => r.status === 'failed');

  const txCounts = count(confirmed.map((r) => r.tx ?? `(no tx) ${r.operationId}`));
  const operationsFor = (r: MintRequest) =>
    inputs.operationsPerRecipient.get(normalize(r.recipient)) ?? 0;
  const overOne = new Set(requests.filter((r) => balanceOf(r) > 1n));
  const extraOps = new Set(requests.filter((r) => operationsFor(r) > 1));
  const sharedTx = new Set(confirmed.filter((r) => (txCounts.get(r.tx ?? '') ?? 0) > 1));
  // Operations for addresses nobody asked for are doubled writes too (e.g. a mangled recipient).
  const asked = new Set(requests.map((r) => normalize(r.recipient)));
  let unaskedOperations = 0;
  for (const [recipient, n] of inputs.operationsPerRecipient) {
    if (!asked.has(recipient)) unaskedOperations += n;
  }
  const doubled = new Set([...overOne, ...extraOps, ...sharedTx]).size + unaskedOperations;

  let held = 0n;
  for (const r of requests) held += balanceOf(r);
  const reasons = [
    ...failed.map((r) => r.error ?? 'failed without an error'),
    ...requests.filter((r) => r.refused).map((r) => `not accepted: ${r.refused}`),
  ];
  return {
    requests: requests.length,
    accepted: accepted.length,
    not_accepted: requests.length - accepted.length,
    confirmed: confirmed.length,
    failed: failed.length,
    unsettled: accepted.length - confirmed.length - failed.length,
    lost: accepted.filter((r) => r.status !== 'failed' && balanceOf(r) === 0n).length,
    doubled,
    doubled_by: {
      balance_over_one: overOne.size,
      extra_operations: extraOps.size + unaskedOperations,
      shared_tx: sharedTx.size,
    },
    failed_but_minted: failed.filter((r) => balanceOf(r) > 0n).length,
    stray_supply: (truth.supply - inputs.initialSupply - held).toString(),
    failure_reasons: Object.fromEntries(count(reasons)),
  };
}

/** Whether the run broke the exactly-once promise on this chain. */
export function brokePromise(figures: ChainFigures): boolean {
  return (
    figures.lost > 0 ||
    figures.doubled > 0 ||
    figures.failed_but_minted > 0 ||
    figures.stray_supply !== '0'
  );
}

function count(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
