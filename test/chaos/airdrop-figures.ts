import { round } from '../../bench/stats';
import type { AirdropRequest, BatchView, Replay } from './airdrop-client';
import type { ChainTruth } from './chain-truth';
import { errorLine } from './error-line';

/** One entry as GET /batches/{id}/items shows it. */
export interface BatchItem {
  index: number;
  recipient: string;
  amount: string;
  status: 'queued' | 'submitted' | 'confirmed' | 'failed';
  operation_id: string;
  tx: string | null;
  error: { error: string; message: string | null } | null;
}

/** What the service's database holds for the airdrop's token (see airdropVerdict). */
export interface AirdropRows {
  /** token.mint operations for this token (the batch's members or not) per recipient. */
  operationsPerRecipient: Map<string, number>;
  /** Batches stored for this token: one request, one key, so exactly one. */
  batches: number;
  /** Carriers made for the batch (splits included), failed ones, and transactions they signed. */
  carriers: number;
  carriersFailed: number;
  carrierTransactionsSigned: number;
}

export interface AirdropInputs {
  request: AirdropRequest;
  /** Every entry the API lists (empty when the request was never accepted). */
  items: BatchItem[];
  truth: ChainTruth;
  initialSupply: bigint;
  rows: AirdropRows;
  normalize: (address: string) => string;
}

/** The verdict on one chain's airdrop: the API's batch and items against the chain. */
export interface AirdropFigures {
  entries: number;
  batch_id: string | null;
  attempts: number;
  /** The final GET /batches/{id}. */
  batch_status: BatchView['status'] | null;
  counts: BatchView['counts'] | null;
  confirmed: number;
  failed: number;
  unsettled: number;
  /** The recipient holds exactly its amount. */
  landed_once: number;
  /** Not reported failed, and the recipient holds nothing. */
  lost: number;
  /** Entries minted more than once (see `doubled_by`). */
  doubled: number;
  doubled_by: {
    /** The recipient holds a multiple of its amount beyond one. */
    balance_over_amount: number;
    /** The service made more than one operation for the entry, or one nobody asked for. */
    extra_operations: number;
  };
  /** The recipient holds neither 0, its amount nor a multiple: another entry's mint, or part. */
  wrong_amount: number;
  /** Reported failed, yet the recipient holds something: a client would send it again. */
  failed_but_minted: number;
  /** Supply minted beyond what the recipients hold. */
  stray_supply: string;
  /** Distinct transactions among the confirmed entries: the ones that minted them. */
  transactions: number;
  transactions_per_entry: number | null;
  /** Carriers the service made (splits of failed ones included) and transactions they signed. */
  carriers: number;
  carriers_failed: number;
  carrier_transactions_signed: number;
  /** Acceptance to completion on the service's clock (created_at to completed_at). */
  settle_s: number | null;
  failure_reasons: Record<string, number>;
  /** The first failed entries, with why (the API's word). */
  failed_entries: { index: number; recipient: string; error: string }[];
  replays: Replay[];
  /** Every way the run broke a promise of the airdrop; empty when it kept them all. */
  problems: string[];
}

export function airdropFigures(inputs: AirdropInputs): AirdropFigures {
  const { request, items, truth, rows, normalize } = inputs;
  const problems: string[] = [];
  const balanceOf = (recipient: string) => truth.balances.get(recipient) ?? 0n;
  const byIndex = new Map(items.map((item) => [item.index, item]));

  if (!request.batchId) problems.push(`never accepted: ${request.refused ?? 'no answer'}`);
  let landedOnce = 0;
  let lost = 0;
  let wrongAmount = 0;
  let failedButMinted = 0;
  let mismatched = 0;
  let confirmedWithoutTx = 0;
  let landedConfirmed = 0;
  let failedNotLanded = 0;
  const overAmount = new Set<number>();
  const extraOperations = new Set<number>();
  const statuses = { queued: 0, submitted: 0, confirmed: 0, failed: 0 };
  const reasons: string[] = [];
  const failedEntries: AirdropFigures['failed_entries'] = [];
  const transactions = new Set<string>();
  let held = 0n;

  request.entries.forEach((entry, index) => {
    const balance = balanceOf(entry.recipient);
    held += balance;
    if (balance === entry.amount) landedOnce += 1;
    else if (balance > entry.amount && balance % entry.amount === 0n) overAmount.add(index);
    else if (balance !== 0n) wrongAmount += 1;
    if ((rows.operationsPerRecipient.get(normalize(entry.recipient)) ?? 0) > 1) {
      extraOperations.add(index);
    }
    if (!request.batchId) return;

    const item = byIndex.get(index);
    if (!item) {
      mismatched += 1;
      if (balance === 0n) lost += 1;
      return;
    }
    if (normalize(item.recipient) !== normalize(entry.recipient)) mismatched += 1;
    else if (item.amount !== entry.amount.toString()) mismatched += 1;
    statuses[item.status] += 1;
    if (item.status === 'failed') {
      const why = item.error ? errorLine(item.error) : 'no error given';
      reasons.push(why);
      if (failedEntries.length < 10) {
        failedEntries.push({ index, recipient: entry.recipient, error: why });
      }
      if (balance > 0n) failedButMinted += 1;
      else failedNotLanded += 1;
      return;
    }
    if (balance === 0n) lost += 1;
    if (item.status === 'confirmed') {
      if (item.tx) transactions.add(item.tx);
      else confirmedWithoutTx += 1;
      if (balance === entry.amount) landedConfirmed += 1;
    }
  });
  // Operations for this token to addresses no entry names are doubled writes too.
  const asked = new Set(request.entries.map((entry) => normalize(entry.recipient)));
  let unasked = 0;
  for (const [recipient, n] of rows.operationsPerRecipient) {
    if (!asked.has(recipient)) unasked += n;
  }
  const doubled = new Set([...overAmount, ...extraOperations]).size + unasked;
  const strayed = truth.supply - inputs.initialSupply - held;

  const batch = request.batchId ? request.batch : undefined;
  const unsettled = statuses.queued + statuses.submitted;
  if (lost) problems.push(`${lost} entries lost (not reported failed, nothing on chain)`);
  if (doubled) problems.push(`${doubled} entries doubled`);
  if (wrongAmount) problems.push(`${wrongAmount} recipients hold an amount not theirs`);
  if (failedButMinted) problems.push(`${failedButMinted} entries reported failed yet on chain`);
  if (strayed !== 0n) problems.push(`stray supply ${strayed}`);
  if (request.batchId) {
    if (mismatched) problems.push(`${mismatched} items missing or not as requested`);
    if (confirmedWithoutTx) problems.push(`${confirmedWithoutTx} confirmed items without a tx`);
    if (items.length !== request.entries.length) {
      problems.push(`${items.length} items listed for ${request.entries.length} entries`);
    }
    const status = batch?.status;
    const expected = statuses.failed > 0 ? 'completed_with_failures' : 'completed';
    if (unsettled > 0 || status !== expected) {
      problems.push(`batch ${status ?? 'never read'} with items ${JSON.stringify(statuses)}`);
    }
    if (batch && JSON.stringify(batch.counts) !== JSON.stringify(statuses)) {
      problems.push(`counts ${JSON.stringify(batch.counts)}, items ${JSON.stringify(statuses)}`);
    }
    // The counts against the chain: each confirmed entry holds its amount, each failed nothing.
    if (landedConfirmed !== statuses.confirmed || failedNotLanded !== statuses.failed) {
      problems.push(
        `chain: ${landedConfirmed} of ${statuses.confirmed} confirmed entries hold their amount, ` +
          `${failedNotLanded} of ${statuses.failed} failed ones hold nothing`,
      );
    }
    if (rows.batches !== 1) problems.push(`${rows.batches} batches stored for one request`);
  } else if (held > 0n) {
    problems.push('never accepted, yet minted');
  }
  for (const replay of request.replays) {
    if (replay.problem) problems.push(`replay ${replay.when}: ${replay.problem}`);
  }

  const settleS =
    batch?.completed_at !== undefined
      ? round((Date.parse(batch.completed_at) - Date.parse(batch.created_at)) / 1000)
      : null;
  return {
    entries: request.entries.length,
    batch_id: request.batchId ?? null,
    attempts: request.attempts,
    batch_status: batch?.status ?? null,
    counts: batch?.counts ?? null,
    confirmed: statuses.confirmed,
    failed: statuses.failed,
    unsettled,
    landed_once: landedOnce,
    lost,
    doubled,
    doubled_by: {
      balance_over_amount: overAmount.size,
      extra_operations: extraOperations.size + unasked,
    },
    wrong_amount: wrongAmount,
    failed_but_minted: failedButMinted,
    stray_supply: strayed.toString(),
    transactions: transactions.size,
    transactions_per_entry: statuses.confirmed
      ? round(transactions.size / statuses.confirmed, 4)
      : null,
    carriers: rows.carriers,
    carriers_failed: rows.carriersFailed,
    carrier_transactions_signed: rows.carrierTransactionsSigned,
    settle_s: settleS,
    failure_reasons: Object.fromEntries(count(reasons)),
    failed_entries: failedEntries,
    replays: request.replays,
    problems,
  };
}

function count(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
