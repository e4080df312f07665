/**
 * Local chains for development and tests: anvil (EVM, chain id 31337) and a Solana JSON-RPC +
 * WebSocket server over an in-process litesvm, so the service runs against real RPC endpoints
 * without a validator binary or network access. `npm run localnet` starts both; test suites call
 * `startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0 })` and `stop()` when done.
 * With REALISTIC_CHAINS (interval mining, slot-bound landing, RPC latency, a per-sender cap on
 * pending EVM transactions) they behave like a public network for benchmarks.
 */
export {
  QUICK_CHAIN_SWEEP,
  REALISTIC_CHAINS,
  startLocalChains,
  type LocalChains,
  type LocalChainsOptions,
} from './local-chains';
export { sweepEvmPool, type EvmPoolSweeper, type SweepPace } from './evm-pool-sweeper';
export { resetLocalState, type LocalState } from './fresh-start';
export { startAnvil, type AnvilHandle, type AnvilOptions } from './anvil';
export { startSolanaRpc, type SolanaRpcHandle, type SolanaRpcOptions } from './solana/solana-rpc';
export { startTcpProxy, type TcpProxy, type TcpProxyOptions } from './tcp-proxy';
export {
  ACCOUNT_LIMIT_CODE,
  accountLimitMessage,
  startSenderCapProxy,
  type SenderCapProxy,
  type SenderCapProxyOptions,
} from './sender-cap-proxy';
export { EPHEMERAL_REDIS_ARGS, spawnRedisServer, type RedisServerProcess } from './ha/redis-server';
export { startRedisCluster, type OwnRedisCluster } from './ha/redis-cluster';
export {
  SENTINEL_PRIMARY_NAME,
  startRedisSentinels,
  type OwnRedisSentinels,
} from './ha/redis-sentinel';
export { startPostgresHa, type PostgresHa } from './ha/postgres-ha';
export { postgresBinDir, postgresIds } from './ha/postgres-binaries';
export { withDatabase } from './database-url';
