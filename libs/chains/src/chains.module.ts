import { Global, Module } from '@nestjs/common';
import { ChainRegistry } from './chain-registry';
import { EvmAdapter } from './evm/evm.adapter';
import { EvmInclusionWatcher } from './evm/evm-inclusion-watcher';
import { NetworkRegistry } from './networks/network-registry';
import { SolanaAdapter } from './solana/solana.adapter';

@Global()
@Module({
  providers: [NetworkRegistry, EvmAdapter, EvmInclusionWatcher, SolanaAdapter, ChainRegistry],
  exports: [NetworkRegistry, EvmAdapter, EvmInclusionWatcher, SolanaAdapter, ChainRegistry],
})
export class ChainsModule {}
