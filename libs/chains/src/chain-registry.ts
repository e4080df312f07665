import { Injectable } from '@nestjs/common';
import type { ChainFamily } from '@app/config';
import type { ChainAdapter } from './chain-adapter';
import { EvmAdapter } from './evm/evm.adapter';
import { SolanaAdapter } from './solana/solana.adapter';

/** The adapter of each chain family. */
@Injectable()
export class ChainRegistry {
  private readonly adapters: Record<ChainFamily, ChainAdapter>;

  constructor(evm: EvmAdapter, solana: SolanaAdapter) {
    this.adapters = { evm, solana };
  }

  adapter(family: ChainFamily): ChainAdapter {
    return this.adapters[family];
  }
}
