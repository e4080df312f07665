import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Chain } from './mint-client';
import type { ChainFigures } from './chaos-figures';
import type { Supervisor } from './supervisor';

/** The figures as a table per chain, then the faults, the crashes and the timings. */
export function printReport(
  figures: Record<Chain, ChainFigures>,
  timings: Record<string, unknown>,
  faults: unknown[],
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
  console.log('\nfaults:');
  for (const fault of faults) console.log('  ' + JSON.stringify(fault));
  console.log(`unexpected exits: ${exits.length ? JSON.stringify(exits) : 'none'}`);
  console.log(`timings: ${JSON.stringify(timings, null, 2)}\n`);
}

/** Every service process's output, the killed ones' included, for a look after the run. */
export function writeServiceLogs(supervisor: Supervisor, dir: string): void {
  rmSync(dir, { recursive: true, force: true }); // only this run's processes
  mkdirSync(dir, { recursive: true });
  for (const { name, process } of supervisor.started) {
    writeFileSync(join(dir, `${name}-${process.process.pid}.log`), process.output());
  }
}
