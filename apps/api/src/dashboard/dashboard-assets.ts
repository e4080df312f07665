import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DashboardAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** The files the dashboard is made of; nothing else under /dashboard is served. */
const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard-kit.js': 'text/javascript; charset=utf-8',
  'usage-chart.js': 'text/javascript; charset=utf-8',
  'operation-detail.js': 'text/javascript; charset=utf-8',
  'webhooks.js': 'text/javascript; charset=utf-8',
  'explorer.js': 'text/javascript; charset=utf-8',
  'assets.js': 'text/javascript; charset=utf-8',
  'airdrops.js': 'text/javascript; charset=utf-8',
  'policies.js': 'text/javascript; charset=utf-8',
};

/**
 * Where the files are: beside this module when run from source (swc-node), and in a `nest build`
 * output too, where nest-cli.json's assets rule copies `dashboard/public` next to the compiled
 * module. The source path from the working directory is the last resort for a build made
 * without that rule.
 */
export function dashboardDirectory(candidates = defaultCandidates()): string {
  const found = candidates.find((dir) => Object.keys(FILES).every((f) => existsSync(join(dir, f))));
  if (!found) {
    throw new Error(`Dashboard files not found; looked in ${candidates.join(', ')}`);
  }
  return found;
}

function defaultCandidates(): string[] {
  return [
    join(__dirname, 'public'),
    join(process.cwd(), 'apps', 'api', 'src', 'dashboard', 'public'),
  ];
}

/** Reads the dashboard's few small files once, at boot, so serving them is a map lookup. */
export function loadDashboardAssets(directory = dashboardDirectory()): Map<string, DashboardAsset> {
  const assets = new Map<string, DashboardAsset>();
  for (const [name, contentType] of Object.entries(FILES)) {
    const body = readFileSync(join(directory, name));
    const digest = createHash('sha256').update(body).digest('base64url').slice(0, 22);
    assets.set(name, { body, contentType, etag: `"${digest}"` });
  }
  return assets;
}
