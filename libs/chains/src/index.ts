/**
 * @app/chains: everything that talks to a chain: the network registry, one ChainAdapter per
 * family (EVM, Solana) and their RPC clients. Imports @app/config and @app/common only; never
 * the database, the queue or an app, and never litesvm (the service speaks JSON-RPC).
 */
export * from './chain-adapter';
export * from './chain-registry';
export * from './chain-rejection';
export * from './chains.module';
export * from './evm/evm.adapter';
export * from './evm/evm-fee-bump';
export * from './evm/evm-refusal';
export * from './evm/evm-receipt';
export * from './evm/evm-inclusion-watcher';
export * from './evm/evm-known-accounts';
export * from './networks/network-definition';
export * from './networks/network-registry';
export * from './rpc-endpoint-pool';
export * from './rpc-error';
export * from './wallet-funds';
export * from './solana/solana.adapter';
export * from './solana/ed25519-signer';
export * from './solana/legacy-message';
export * from './solana/carrier-nonce';
export * from './solana/operation-memo';
export * from './solana/priority-fee';
export * from './solana/signature-status.batcher';
export * from './solana/solana-errors';
export * from './solana/solana-funds';
export * from './solana/solana-known-accounts';
export * from './solana/solana-planner';
export * from './solana/solana-reads';
export * from './solana/solana-rpc.client';
export * from './solana/token2022-instructions';
export * from './solana/token-mint-capacity';
export * from './solana/token-mint-compute';
export * from './evm/contracts/artifacts';
export * from './evm/evm-planner';
export * from './evm/evm-revert';
export * from './evm/evm-reads';
export * from './signers/ecdsa-recovery';
export * from './signers/pkcs11-token';
export * from './signers/wallet-keys';
