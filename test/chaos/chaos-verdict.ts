import { batchItems } from '@test/support/airdrops';
import { queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import type { ServiceStack } from '@test/support/service-stack';
import { percentile, round } from '../../bench/stats';
import type { AirdropRequest } from './airdrop-client';
import { airdropFigures, type AirdropFigures, type BatchItem } from './airdrop-figures';
import { evmTruth, solanaTruth, type ChainTruth } from './chain-truth';
import { chainFigures, type ChainFigures } from './chaos-figures';
import { sleep, type Chain, type MintRequest } from './mint-client';

/**
 * Reads the truth from the chains and the operations from the database, per chain: the single
 * mints (operations outside any batch; an airdrop's entries are token.mint operations too, of
 * their own token here).
 */
export async function verdict(
  stack: ServiceStack,
  tokens: Record<Chain, string>,
  requests: MintRequest[],
): Promise<Record<Chain, ChainFigures>> {
  const figures = {} as Record<Chain, ChainFigures>;
  for (const chain of ['evm', 'solana'] as const) {
    const mine = requests.filter((r) => r.chain === chain);
    const recipients = mine.map((r) => r.recipient);
    const truth: ChainTruth =
      chain === 'evm'
        ? await evmTruth(stack.chains.evmRpcUrl, tokens.evm, recipients)
        : await solanaTruth(stack.chains.solanaRpcUrl, tokens.solana, recipients);
    const normalize = (address: string) => (chain === 'evm' ? address.toLowerCase() : address);
    const rows = await queryDatabase<{ recipient: string; n: number }>(
      stack.services.databaseUrl,
      `SELECT intent->>'recipient' AS recipient, count(*)::int AS n FROM operations
        WHERE kind = 'token.mint' AND batch_id IS NULL AND lower(intent->>'asset') = lower($1)
        GROUP BY 1`,
      [tokens[chain]],
    );
    figures[chain] = chainFigures({
      requests: mine,
      truth,
      initialSupply: 1n,
      operationsPerRecipient: new Map(rows.map((row) => [normalize(row.recipient), row.n])),
      normalize,
    });
  }
  return figures;
}

/**
 * Each airdrop's entries read from the chain (every recipient's balance, the token's supply),
 * its batch and items from the API, and its operations, carriers and batches from the database.
 */
export async function airdropVerdict(
  stack: ServiceStack,
  api: HttpClient,
  airdrops: AirdropRequest[],
): Promise<Partial<Record<Chain, AirdropFigures>>> {
  const figures: Partial<Record<Chain, AirdropFigures>> = {};
  for (const request of airdrops) {
    const { chain, token } = request;
    const recipients = request.entries.map((entry) => entry.recipient);
    const truth: ChainTruth =
      chain === 'evm'
        ? await evmTruth(stack.chains.evmRpcUrl, token, recipients)
        : await solanaTruth(stack.chains.solanaRpcUrl, token, recipients);
    const normalize = (address: string) => (chain === 'evm' ? address.toLowerCase() : address);
    const items = request.batchId ? await allItems(api, request.batchId) : [];
    const db = stack.services.databaseUrl;
    // Batch members or not: any token.mint of this token is one of the airdrop's writes.
    const perRecipient = await queryDatabase<{ recipient: string; n: number }>(
      db,
      `SELECT intent->>'recipient' AS recipient, count(*)::int AS n FROM operations
        WHERE kind = 'token.mint' AND lower(intent->>'asset') = lower($1) GROUP BY 1`,
      [token],
    );
    const [batches] = await queryDatabase<{ n: number }>(
      db,
      `SELECT count(*)::int AS n FROM batches WHERE lower(asset) = lower($1)`,
      [token],
    );
    const [carriers] = await queryDatabase<{ made: number; failed: number; signed: number }>(
      db,
      `SELECT count(*)::int AS made,
              count(*) FILTER (WHERE status = 'failed')::int AS failed,
              (SELECT count(*)::int FROM operation_transactions t
                 JOIN operations c ON c.id = t.operation_id
                WHERE t.item = 0 AND c.batch_id = $1::uuid AND c.batch_index IS NULL) AS signed
         FROM operations WHERE batch_id = $1::uuid AND batch_index IS NULL`,
      [request.batchId ?? null],
    );
    figures[chain] = airdropFigures({
      request,
      items,
      truth,
      initialSupply: 1n,
      rows: {
        operationsPerRecipient: new Map(perRecipient.map((r) => [normalize(r.recipient), r.n])),
        batches: batches.n,
        carriers: carriers.made,
        carriersFailed: carriers.failed,
        carrierTransactionsSigned: carriers.signed,
      },
      normalize,
    });
  }
  return figures;
}

/** Every item of the batch; a read that fails (the API restarting) is tried again a few times. */
async function allItems(api: HttpClient, batchId: string): Promise<BatchItem[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await batchItems(api, batchId)) as unknown as BatchItem[];
    } catch (error) {
      if (attempt >= 5) throw error;
      await sleep(2_000);
    }
  }
}

/** Acceptance (client side, retries included) and settlement (the service's own clock). */
export async function latencies(
  databaseUrl: string,
  requests: MintRequest[],
): Promise<Record<string, unknown>> {
  const rows = await queryDatabase<{ network: string; ms: number; settled: number }>(
    databaseUrl,
    `SELECT network, extract(epoch FROM settled_at - created_at)::float * 1000 AS ms,
            extract(epoch FROM settled_at)::float * 1000 AS settled
       FROM operations WHERE kind = 'token.mint' AND batch_id IS NULL AND settled_at IS NOT NULL`,
  );
  const result: Record<string, unknown> = {};
  for (const chain of ['evm', 'solana'] as const) {
    const accept = requests.filter((r) => r.chain === chain && r.acceptMs !== undefined);
    const settle = rows.filter((row) => (chain === 'solana') === (row.network === 'solana'));
    result[chain] = {
      accept_ms: spread(accept.map((r) => r.acceptMs!)),
      retried_requests: accept.filter((r) => r.attempts > 1).length,
      max_attempts: Math.max(0, ...accept.map((r) => r.attempts)),
      settle_ms: spread(settle.map((row) => row.ms)),
      longest_quiet_ms: round(longestQuiet(settle.map((row) => row.settled))),
    };
  }
  return result;
}

/**
 * The longest stretch between two settlements of the run (its operations flow all along, so a
 * long one is a stall: a killed worker's operations waiting for something to take them back).
 */
export function longestQuiet(settledAtMs: number[]): number {
  const sorted = [...settledAtMs].sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < sorted.length; i++) longest = Math.max(longest, sorted[i] - sorted[i - 1]);
  return longest;
}

function spread(values: number[]): { p50: number; p99: number; max: number } {
  return {
    p50: round(percentile(values, 50)),
    p99: round(percentile(values, 99)),
    max: round(Math.max(...values)),
  };
}
