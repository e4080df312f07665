import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Jest's globalSetup: a SoftHSM2 configuration whose tokens live in a temporary directory of this
 * run, named by SOFTHSM2_CONF in the real environment of the process. It must be there: the
 * module reads the variable when initialized, with the C library's getenv, which never sees what
 * a test sets in Jest's copy of process.env. Tokens are made by freshSoftHsmToken.
 */
export default function softHsmSetup(): void {
  if (process.env.SOFTHSM2_CONF) return;
  const dir = mkdtempSync(join(tmpdir(), 'softhsm-'));
  process.env.SOFTHSM_RUN_DIR = dir; // removed by softhsm.global-teardown.ts
  mkdirSync(join(dir, 'tokens'));
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(
    conf,
    [
      `directories.tokendir = ${join(dir, 'tokens')}`,
      'objectstore.backend = file',
      'log.level = ERROR',
      'slots.removable = false',
      '',
    ].join('\n'),
  );
  process.env.SOFTHSM2_CONF = conf;
}
