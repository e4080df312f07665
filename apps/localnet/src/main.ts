import { resolve } from 'node:path';
import { startLocalChains } from './local-chains';
import { chainBehaviourFromEnv, describeChainBehaviour, intFromEnv } from './localnet-env';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

async function main(): Promise<void> {
  const dataDir = resolve(REPO_ROOT, process.env.LOCALNET_DATA_DIR || '.localnet');
  const behaviour = chainBehaviourFromEnv(process.env);
  const chains = await startLocalChains({
    evmPort: intFromEnv(process.env, 'EVM_PORT', 8545),
    solanaPort: intFromEnv(process.env, 'SOLANA_RPC_PORT', 8899),
    solanaWsPort: intFromEnv(process.env, 'SOLANA_WS_PORT', 8900),
    ...behaviour,
    dataDir,
  });
  console.log(
    [
      'localnet ready',
      `  EVM_RPC_URL=${chains.evmRpcUrl}  (anvil, chain id 31337)`,
      `  SOLANA_RPC_URL=${chains.solanaRpcUrl}`,
      `  SOLANA_WS_URL=${chains.solanaWsUrl}`,
      `  state: ${dataDir}`,
      ...describeChainBehaviour(behaviour).map((line) => `  ${line}`),
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = (signal: string, code: number) => {
    if (stopping) return;
    stopping = true;
    console.log(`localnet: ${signal}, stopping`);
    chains.stop().then(
      () => process.exit(code),
      (err: unknown) => {
        console.error('localnet: stop failed', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT', 0));
  process.on('SIGTERM', () => shutdown('SIGTERM', 0));
  process.on('SIGHUP', () => shutdown('SIGHUP', 0));
  process.on('uncaughtException', (err) => {
    console.error('localnet: uncaught exception', err);
    shutdown('uncaught exception', 1);
  });
}

main().catch((err: unknown) => {
  console.error('localnet: failed to start', err);
  process.exit(1);
});
