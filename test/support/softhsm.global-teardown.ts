import { rmSync } from 'node:fs';

/** Jest's globalTeardown: the run's SoftHSM2 token directory, made by softhsm.global-setup.ts. */
export default function softHsmTeardown(): void {
  const dir = process.env.SOFTHSM_RUN_DIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
