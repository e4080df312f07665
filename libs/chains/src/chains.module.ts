import { Global, Module } from '@nestjs/common';
import { ChainRegistry } from './chain-registry';
import { EvmAdapter } from './evm/evm.adapter';
import { NetworkRegistry } from './networks/network-registry';
import { SolanaAdapter } from './solana/solana.adapter';

@Global()
@Module({
  providers: [NetworkRegistry, EvmAdapter, SolanaAdapter, ChainRegistry],
  exports: [NetworkRegistry, EvmAdapter, SolanaAdapter, ChainRegistry],
})
export class ChainsModule {}
