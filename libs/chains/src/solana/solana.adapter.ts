import { Inject, Injectable } from '@nestjs/common';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { ChainAdapter, GeneratedWallet } from '../chain-adapter';
import type { NetworkDefinition, SolanaNetworkDefinition } from '../networks/network-definition';
import { withTimeout } from '../rpc-error';

const BASE58_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const DEV_FUNDING_LAMPORTS = 100 * LAMPORTS_PER_SOL;

@Injectable()
export class SolanaAdapter implements ChainAdapter {
  readonly family = 'solana' as const;
  private readonly connections = new Map<string, Connection>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  generateWallet(): GeneratedWallet {
    const keypair = Keypair.generate();
    return {
      publicKey: keypair.publicKey.toBase58(),
      secretKey: bs58.encode(keypair.secretKey),
      secretBytes: keypair.secretKey,
    };
  }

  normalizeAddress(address: string): string | null {
    if (!BASE58_KEY.test(address)) return null;
    try {
      return bs58.decode(address).length === 32 ? new PublicKey(address).toBase58() : null;
    } catch {
      return null;
    }
  }

  async getNativeBalance(network: NetworkDefinition, address: string): Promise<bigint> {
    const definition = asSolana(network);
    const lamports = await this.call(
      definition,
      this.connection(definition).getBalance(new PublicKey(address), 'confirmed'),
    );
    return BigInt(lamports);
  }

  async fundForDevelopment(network: NetworkDefinition, address: string): Promise<void> {
    const definition = asSolana(network);
    const connection = this.connection(definition);
    const signature = await this.call(
      definition,
      connection.requestAirdrop(new PublicKey(address), DEV_FUNDING_LAMPORTS),
    );
    const latest = await this.call(definition, connection.getLatestBlockhash('confirmed'));
    await this.call(
      definition,
      connection.confirmTransaction({ signature, ...latest }, 'confirmed'),
    );
  }

  async ping(network: NetworkDefinition): Promise<void> {
    const definition = asSolana(network);
    await this.call(definition, this.connection(definition).getSlot('confirmed'));
  }

  connection(network: SolanaNetworkDefinition): Connection {
    let connection = this.connections.get(network.chainKey);
    if (!connection) {
      connection = new Connection(network.rpcUrl, {
        commitment: 'confirmed',
        wsEndpoint: network.wsUrl,
        disableRetryOnRateLimit: true,
      });
      this.connections.set(network.chainKey, connection);
    }
    return connection;
  }

  private call<T>(network: SolanaNetworkDefinition, work: Promise<T>): Promise<T> {
    return withTimeout(work, this.config.chains.rpcTimeoutMs, network.network);
  }
}

function asSolana(network: NetworkDefinition): SolanaNetworkDefinition {
  if (network.family !== 'solana') throw new Error(`${network.network} is not Solana`);
  return network;
}
