import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { NETWORKS } from '@app/config';
import { ACCOUNT_EVENT_TYPES } from '@app/database';
import { dashboardDirectory, loadDashboardAssets } from './dashboard-assets';

const PUBLIC = join(__dirname, 'public');

describe('dashboard assets', () => {
  it('loads every page file with its content type and a content-derived ETag', () => {
    const assets = loadDashboardAssets(PUBLIC);
    expect([...assets.keys()]).toEqual(
      expect.arrayContaining(['dashboard.css', 'dashboard.js', 'index.html']),
    );
    expect(assets.get('index.html')?.contentType).toBe('text/html; charset=utf-8');
    expect(assets.get('dashboard.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.get('dashboard.css')?.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  });

  it('links only files it serves, and no inline script the CSP would block', () => {
    const html = loadDashboardAssets(PUBLIC).get('index.html')!.body.toString();
    const linked = [...html.matchAll(/(?:src|href)="\/dashboard\/([^"]+)"/g)].map((m) => m[1]);
    expect(linked.sort()).toEqual(['dashboard.css', 'dashboard.js']);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/\son[a-z]+="/);
  });

  it('serves every module the page script imports, and every script of the folder', () => {
    const assets = loadDashboardAssets(PUBLIC);
    const scripts = readdirSync(PUBLIC).filter((file) => file.endsWith('.js'));
    expect([...assets.keys()].filter((file) => file.endsWith('.js')).sort()).toEqual(
      scripts.sort(),
    );
    for (const script of scripts) {
      const source = assets.get(script)!.body.toString();
      for (const [, imported] of source.matchAll(/from '\.\/([^']+)'/g)) {
        expect(assets.has(imported)).toBe(true);
      }
    }
  });

  it("offers the spec's networks in the operations filter", () => {
    const script = loadDashboardAssets(PUBLIC).get('dashboard.js')!.body.toString();
    const listed = /const NETWORKS = \[([^\]]*)\]/.exec(script)?.[1] ?? '';
    expect([...listed.matchAll(/'([a-z]+)'/g)].map((m) => m[1])).toEqual([...NETWORKS]);
  });

  it('offers every account event type in the webhook form', () => {
    const script = loadDashboardAssets(PUBLIC).get('webhooks.js')!.body.toString();
    const listed = /const EVENT_TYPES = \[([^\]]*)\]/.exec(script)?.[1] ?? '';
    expect([...listed.matchAll(/'([a-z_.]+)'/g)].map((m) => m[1])).toEqual([
      ...ACCOUNT_EVENT_TYPES,
    ]);
  });

  it('finds the files from source and says where it looked when they are missing', () => {
    expect(dashboardDirectory()).toBe(PUBLIC);
    expect(() => dashboardDirectory(['/nowhere/a', '/nowhere/b'])).toThrow(
      'Dashboard files not found; looked in /nowhere/a, /nowhere/b',
    );
  });

  it('has a browser script that type-checks (strict, through its JSDoc types)', () => {
    const configPath = join(PUBLIC, 'tsconfig.json');
    const parsed = ts.getParsedCommandLineOfConfigFile(configPath, undefined, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    });
    expect(parsed?.fileNames.map((file) => file.replace(/\\/g, '/'))).toContain(
      join(PUBLIC, 'dashboard.js').replace(/\\/g, '/'),
    );
    const program = ts.createProgram(parsed!.fileNames, parsed!.options);
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      return `${diagnostic.file?.fileName ?? ''}:${(where?.line ?? 0) + 1} ${text}`;
    });
    expect(problems).toEqual([]);
  });
});
