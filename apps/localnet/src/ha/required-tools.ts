import { spawnSync } from 'node:child_process';

/**
 * Throws, naming the Debian packages to install, unless every tool is on PATH: a stack of its
 * own says what it lacks rather than failing on a spawn error.
 */
export function requireTools(stack: string, tools: string[], packages: string[]): void {
  const missing = tools.filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0,
  );
  if (missing.length === 0) return;
  throw new Error(
    `${stack} needs ${missing.join(', ')} on PATH: apt-get install -y ${packages.join(' ')}`,
  );
}
