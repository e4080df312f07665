import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AirdropFigures } from './airdrop-figures';
import type { Chain } from './mint-client';
import type { ChainFigures } from './chaos-figures';
import type { FaultRecord } from './fault-schedule';
import type { Supervisor } from './supervisor';

/**
 * The single mints' figures as a table per chain, the airdrops' as another, then the faults,
 * the crashes and the timings.
 */
export function printReport(
  figures: Record<Chain, ChainFigures>,
  airdrops: Partial<Record<Chain, AirdropFigures>>,
  timings: Record<string, unknown>,
  faults: FaultRecord[],
  exits: unknown[],
): void {
  const columns = [
    'requests',
    'accepted',
    'confirmed',
    'failed',
    'unsettled',
    'lost',
    'doubled',
    'failed_but_minted',
    'stray_supply',
  ] as const;
  console.log('\nchain   ' + columns.map((c) => c.padStart(10)).join(' '));
  for (const chain of ['evm', 'solana'] as const) {
    const row = columns.map((c) => String(figures[chain][c]).padStart(10)).join(' ');
    console.log(chain.padEnd(8) + row);
  }
  for (const chain of ['evm', 'solana'] as const) {
    const { doubled_by: by, failure_reasons: reasons } = figures[chain];
    console.log(`${chain}: doubled by ${JSON.stringify(by)}; failures ${JSON.stringify(reasons)}`);
  }
  printAirdrops(airdrops, faults);
  console.log('\nfaults:');
  for (const fault of faults) console.log('  ' + JSON.stringify(fault));
  console.log(`unexpected exits: ${exits.length ? JSON.stringify(exits) : 'none'}`);
  console.log(`timings: ${JSON.stringify(timings, null, 2)}\n`);
}

function printAirdrops(
  airdrops: Partial<Record<Chain, AirdropFigures>>,
  faults: FaultRecord[],
): void {
  const chains = (['evm', 'solana'] as const).filter((chain) => airdrops[chain]);
  if (!chains.length) return;
  const columns = [
    'entries',
    'confirmed',
    'failed',
    'unsettled',
    'lost',
    'doubled',
    'wrong_amount',
    'failed_but_minted',
    'stray_supply',
    'transactions',
    'carriers',
    'settle_s',
  ] as const;
  console.log('\nairdrop ' + columns.map((c) => c.padStart(10)).join(' '));
  for (const chain of chains) {
    const row = columns.map((c) => String(airdrops[chain]![c]).padStart(10)).join(' ');
    console.log(chain.padEnd(8) + row);
  }
  for (const chain of chains) {
    const f = airdrops[chain]!;
    // The faults that struck while this airdrop still had entries to settle.
    const struck = faults.filter((fault) => {
      const seen = (
        fault.in_flight as Record<string, { entries_unsettled?: number }> | undefined
      )?.[chain];
      return (seen?.entries_unsettled ?? 0) > 0;
    });
    console.log(
      `${chain} airdrop: batch ${f.batch_id} ${f.batch_status} ${JSON.stringify(f.counts)}; ` +
        `${f.transactions} transactions (${f.transactions_per_entry} a confirmed entry), ` +
        `${f.carrier_transactions_signed} signed by ${f.carriers} carriers (${f.carriers_failed} failed); ` +
        `struck in flight by ${struck.map((fault) => fault.name).join(', ') || 'no fault'}`,
    );
    if (f.failed) {
      console.log(
        `  failures ${JSON.stringify(f.failure_reasons)}; first: ${JSON.stringify(f.failed_entries.slice(0, 3))}`,
      );
    }
    for (const problem of f.problems) console.log(`  PROBLEM: ${problem}`);
  }
}

/** Every service process's output, the killed ones' included, for a look after the run. */
export function writeServiceLogs(supervisor: Supervisor, dir: string): void {
  rmSync(dir, { recursive: true, force: true }); // only this run's processes
  mkdirSync(dir, { recursive: true });
  for (const { name, process } of supervisor.started) {
    writeFileSync(join(dir, `${name}-${process.process.pid}.log`), process.output());
  }
}
