import { queryDatabase } from '@test/support/chain-reads';
import type { ServiceStack } from '@test/support/service-stack';
import { percentile, round } from '../../bench/stats';
import { evmTruth, solanaTruth, type ChainTruth } from './chain-truth';
import { chainFigures, type ChainFigures } from './chaos-figures';
import type { Chain, MintRequest } from './mint-client';

/** Reads the truth from the chains and the operations from the database, per chain. */
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
        WHERE kind = 'token.mint' AND lower(intent->>'asset') = lower($1) GROUP BY 1`,
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

/** Acceptance (client side, retries included) and settlement (the service's own clock). */
export async function latencies(
  databaseUrl: string,
  requests: MintRequest[],
): Promise<Record<string, unknown>> {
  const rows = await queryDatabase<{ network: string; ms: number; settled: number }>(
    databaseUrl,
    `SELECT network, extract(epoch FROM settled_at - created_at)::float * 1000 AS ms,
            extract(epoch FROM settled_at)::float * 1000 AS settled
       FROM operations WHERE kind = 'token.mint' AND settled_at IS NOT NULL`,
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
