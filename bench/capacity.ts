/**
 * `npm run capacity`: the capacity model of docs/capacity.md, from a bench:mint-cost run on this
 * machine (synchronous NFT mints, 32 in flight, per family). It prints the CPU and Postgres work
 * an operation costs each component, the operations a second one core of each carries, what one
 * wallet can land on a chain of B-second blocks and gas limit G, and at 10x and 100x this run's
 * load the cores each component needs and which runs out first.
 *
 *   CAPACITY_BLOCK_SECONDS=2  CAPACITY_BLOCK_GAS=30000000   the chain (Base's figures)
 *   CAPACITY_PENDING_CAP=64   a public node's pending transactions a sender (geth's default)
 *   CAPACITY_CARRIER_SHARE=0.5   AIRDROP_BLOCK_GAS_PERCENT / 100
 *   CAPACITY_POSTGRES_CORES=8  the primary's cores;  CAPACITY_REDIS_NODES=1  Redis masters
 *   BENCH_MINTS, BENCH_IN_FLIGHT as bench:mint-cost.
 */
import { run as mintCost, type MintCost } from './mint-cost.bench';
import {
  atLoad,
  ceilingLoad,
  evmPerWallet,
  perCore,
  type Chain,
  type ComponentCost,
  type ScaleLimits,
} from './capacity-model';
import { round } from './stats';

/**
 * Gas of an AssetCollection mint to a new holder (67-character URI) and of an item of a
 * 100-item mintBatch, as test/integration/evm-contracts.test.ts measures and prints them.
 */
const GAS_PER_NFT_MINT = 168_098;
const GAS_PER_BATCH_ITEM = 47_725;

function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : Number(value);
}

function costOf(result: MintCost): ComponentCost {
  const ms = result.cpuMsPerMint;
  return {
    api: ms.api ?? 0,
    worker: ms.worker ?? 0,
    postgres: (ms.postgres ?? 0) + (ms['postgres (shared)'] ?? 0),
    redis: ms['redis (shared)'] ?? 0,
  };
}

async function main(): Promise<void> {
  const chain: Chain = {
    blockSeconds: envNumber('CAPACITY_BLOCK_SECONDS', 2),
    blockGas: envNumber('CAPACITY_BLOCK_GAS', 30_000_000),
    carrierShare: envNumber('CAPACITY_CARRIER_SHARE', 0.5),
    pendingCap: envNumber('CAPACITY_PENDING_CAP', 64),
  };
  const limits: ScaleLimits = {
    postgresCores: envNumber('CAPACITY_POSTGRES_CORES', 8),
    redisNodes: envNumber('CAPACITY_REDIS_NODES', 1),
  };
  // Statements are counted on a Postgres of the bench's own that preloads pg_stat_statements.
  process.env.BENCH_PG_STATEMENTS ??= '1';
  const results = await mintCost();

  console.log('\nMeasured: one synchronous NFT mint, CPU ms by component and Postgres work');
  console.table(
    results.map((result) => ({
      family: result.family,
      'mints/s (this machine)': result.mintsPerSecond,
      ...costOf(result),
      statements: result.statementsPerMint ?? 'n/a',
      transactions: result.transactionsPerMint,
      'rows written': result.rowsWrittenPerMint,
      'WAL bytes': result.walBytesPerMint,
    })),
  );

  console.log('Operations a second one core of each component carries (1000 / CPU ms)');
  console.table(
    results.map((result) => ({
      family: result.family,
      ...Object.fromEntries(
        Object.entries(perCore(costOf(result))).map(([component, rate]) => [
          component,
          round(rate),
        ]),
      ),
    })),
  );

  const wallet = evmPerWallet(chain, GAS_PER_NFT_MINT, GAS_PER_BATCH_ITEM);
  console.log(
    `One EVM wallet on ${chain.blockSeconds} s blocks of ${chain.blockGas} gas ` +
      `(pending cap ${chain.pendingCap}): ${round(wallet.singles)} single NFT mints/s ` +
      `(bound: ${wallet.singlesBound}), ${round(wallet.airdropItems)} airdrop items/s ` +
      `(carriers of ${chain.carrierShare * 100}% of a block). More: more wallets (an account ` +
      'per issuer, or several signers), or airdrops.',
  );

  for (const result of results) {
    const cost = costOf(result);
    const ceiling = ceilingLoad(cost, limits);
    console.log(
      `\n${result.family}: with a ${limits.postgresCores}-core Postgres primary and ` +
        `${limits.redisNodes} Redis node(s), the first to run out is ${ceiling.component}, at ` +
        `${round(ceiling.load)} mints/s (${round(ceiling.load / result.mintsPerSecond, 1)}x this run).`,
    );
    const rows = [10, 100].map((factor) => {
      const load = result.mintsPerSecond * factor;
      const { cores, fits } = atLoad(cost, limits, load);
      return {
        load: `${factor}x = ${round(load)}/s`,
        ...Object.fromEntries(
          Object.entries(cores).map(([component, needed]) => [
            `${component} cores`,
            `${round(needed, 1)}${fits[component as keyof typeof fits] ? '' : ' (over)'}`,
          ]),
        ),
      };
    });
    console.table(rows);
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
