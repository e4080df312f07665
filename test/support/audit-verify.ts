import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Runs `npm run audit:verify` (its script, as a process) against a database. */
export function runAuditVerify(databaseUrl: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', '@swc-node/register', 'libs/database/src/audit-verify.cli.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, APP_PROFILE: 'local', DATABASE_URL: databaseUrl, NO_COLOR: '1' },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: stdout + stderr });
      },
    );
  });
}
