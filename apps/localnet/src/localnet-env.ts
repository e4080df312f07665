import { REALISTIC_CHAINS, type LocalChainsOptions } from './local-chains';

/**
 * How the chains of `npm run localnet` and `npm run local` behave, from the environment:
 * `LOCALNET_REALISTIC=1` starts from REALISTIC_CHAINS, and each variable below overrides one part.
 */
export function chainBehaviourFromEnv(env: NodeJS.ProcessEnv): LocalChainsOptions {
  const preset: LocalChainsOptions = flagFromEnv(env, 'LOCALNET_REALISTIC') ? REALISTIC_CHAINS : {};
  return {
    slotMs: intFromEnv(env, 'SLOT_MS', preset.slotMs ?? 400),
    evmBlockTimeSeconds: numberFromEnv(
      env,
      'LOCALNET_EVM_BLOCK_TIME',
      preset.evmBlockTimeSeconds ?? 0,
    ),
    solanaLandAtSlotBoundary: flagFromEnv(
      env,
      'LOCALNET_SOLANA_SLOT_LANDING',
      preset.solanaLandAtSlotBoundary ?? false,
    ),
    rpcLatencyMs: intFromEnv(env, 'LOCALNET_RPC_LATENCY_MS', preset.rpcLatencyMs ?? 0),
    evmSenderPendingCap: intFromEnv(
      env,
      'LOCALNET_EVM_SENDER_CAP',
      preset.evmSenderPendingCap ?? 0,
    ),
  };
}

/** One line per behaviour that differs from a quiet local chain, for the startup banner. */
export function describeChainBehaviour(opts: LocalChainsOptions): string[] {
  return [
    opts.evmBlockTimeSeconds
      ? `EVM: a block every ${opts.evmBlockTimeSeconds} s`
      : 'EVM: a block per transaction',
    `Solana: ${opts.slotMs ?? 400} ms slots, transactions ${
      opts.solanaLandAtSlotBoundary ? 'land when their slot ends' : 'final at once'
    }`,
    ...(opts.evmSenderPendingCap
      ? [
          `EVM: at most ${opts.evmSenderPendingCap} pending transactions per sender (more: "account limit exceeded", as geth)`,
        ]
      : []),
    ...(opts.rpcLatencyMs ? [`RPC latency: +${opts.rpcLatencyMs} ms round trip (proxy)`] : []),
  ];
}

export function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = numberFromEnv(env, name, fallback);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

function numberFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

function flagFromEnv(env: NodeJS.ProcessEnv, name: string, fallback = false): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true'].includes(raw)) return true;
  if (['0', 'false'].includes(raw)) return false;
  throw new Error(`${name} must be 1/true or 0/false, got "${raw}"`);
}
