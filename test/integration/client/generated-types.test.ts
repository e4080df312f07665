import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..', '..');
const COMMITTED = join(ROOT, 'libs/client/src/generated/schema.ts');

/** `npm run client:check`: regenerates the client's types from the API and compares. */
function check(env: Record<string, string> = {}) {
  return promisify(execFile)(
    process.execPath,
    ['-r', '@swc-node/register', 'libs/client/generate-schema.ts', '--check'],
    { cwd: ROOT, env: { ...process.env, ...env } },
  ).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

describe('the client types generated from the OpenAPI document', () => {
  it('are what the API generates now (run `npm run client:generate` after an API change)', async () => {
    const result = await check();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('fail the check when they lag behind the API', async () => {
    // As if the API had gained a field since the file was generated.
    const stale = readFileSync(COMMITTED, 'utf8').replace(
      /(OperationView: \{\n)/,
      '$1            removed_since?: string;\n',
    );
    expect(stale).not.toBe(readFileSync(COMMITTED, 'utf8'));
    const file = join(mkdtempSync(join(tmpdir(), 'client-schema-')), 'schema.ts');
    writeFileSync(file, stale);
    const result = await check({ CLIENT_SCHEMA_FILE: file });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('npm run client:generate');
  });
});
