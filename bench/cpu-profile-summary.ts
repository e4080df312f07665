/**
 * Where a process's CPU went: self time of a `.cpuprofile` (node --cpu-prof) summed by package
 * (node_modules/<name>), by our own source file, and by function, the top entries of each.
 * Run: node -r @swc-node/register bench/cpu-profile-summary.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package a frame belongs to, our own file, or the runtime's bucket. */
function placeOf(url: string, functionName: string): string {
  if (!url) return `(${functionName || 'native'})`;
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return url;
  const own = /\/(apps|libs)\/(.*)$/.exec(url);
  return own ? `${own[1]}/${own[2]}` : url;
}

function summarize(path: string, top: number): void {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000),
  );
  const total = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const place = placeOf(url, functionName);
    byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
    const name = `${functionName || '(anonymous)'} ${place}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  }
  const table = (entries: Map<string, number>) =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([where, ms]) => ({
        where,
        ms: Math.round(ms),
        share: `${((ms / total) * 100).toFixed(1)}%`,
      }));
  console.log(`${path}: ${Math.round(total)} ms sampled`);
  console.table(table(byPlace));
  console.table(table(byFunction));
}

summarize(process.argv[2], Number(process.argv[3] ?? 25));
