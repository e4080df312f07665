import { Inject, Injectable } from '@nestjs/common';
import { JsonRpcProvider, Network as EthersNetwork, Wallet, getAddress, parseEther } from 'ethers';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { ChainAdapter, GeneratedWallet } from '../chain-adapter';
import type { EvmNetworkDefinition, NetworkDefinition } from '../networks/network-definition';
import { withTimeout } from '../rpc-error';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DEV_FUNDING = parseEther('100');

@Injectable()
export class EvmAdapter implements ChainAdapter {
  readonly family = 'evm' as const;
  private readonly providers = new Map<string, JsonRpcProvider>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  generateWallet(): GeneratedWallet {
    const wallet = Wallet.createRandom();
    return {
      publicKey: wallet.address,
      secretKey: wallet.privateKey,
      secretBytes: Buffer.from(wallet.privateKey.slice(2), 'hex'),
    };
  }

  /** Any letter case is accepted (contract: "checksum accepted, case-insensitive"). */
  normalizeAddress(address: string): string | null {
    return EVM_ADDRESS.test(address) ? getAddress(address.toLowerCase()) : null;
  }

  async getNativeBalance(network: NetworkDefinition, address: string): Promise<bigint> {
    const definition = asEvm(network);
    return this.call(definition, this.provider(definition).getBalance(address));
  }

  async fundForDevelopment(network: NetworkDefinition, address: string): Promise<void> {
    const definition = asEvm(network);
    const balance = await this.getNativeBalance(definition, address);
    await this.call(
      definition,
      this.provider(definition).send('anvil_setBalance', [
        address,
        '0x' + (balance + DEV_FUNDING).toString(16),
      ]),
    );
  }

  async ping(network: NetworkDefinition): Promise<void> {
    const definition = asEvm(network);
    await this.call(definition, this.provider(definition).send('eth_chainId', []));
  }

  provider(network: EvmNetworkDefinition): JsonRpcProvider {
    let provider = this.providers.get(network.chainKey);
    if (!provider) {
      provider = new JsonRpcProvider(
        network.rpcUrl,
        EthersNetwork.from(network.chainId),
        // A fixed network skips detection calls; no response cache, or quick reads go stale.
        { staticNetwork: true, cacheTimeout: -1, pollingInterval: 250 },
      );
      this.providers.set(network.chainKey, provider);
    }
    return provider;
  }

  private call<T>(network: EvmNetworkDefinition, work: Promise<T>): Promise<T> {
    return withTimeout(work, this.config.chains.rpcTimeoutMs, network.network);
  }

  onModuleDestroy(): void {
    for (const provider of this.providers.values()) provider.destroy();
  }
}

function asEvm(network: NetworkDefinition): EvmNetworkDefinition {
  if (network.family !== 'evm') throw new Error(`${network.network} is not an EVM network`);
  return network;
}
