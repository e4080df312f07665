import type { ChainFamily } from '@app/config';
import type { NetworkDefinition } from './networks/network-definition';
import type { EndpointHealth } from './rpc-endpoint-pool';

export interface GeneratedWallet {
  publicKey: string;
  /** Solana: base58 of the 64-byte secret key; EVM: 0x-hex private key. */
  secretKey: string;
  /** The raw secret, for callers that encrypt it at rest. */
  secretBytes: Uint8Array;
}

/**
 * What the service needs of a chain family. One adapter per family; which node it talks to comes
 * from the NetworkDefinition, so adding a network is a configuration row, not code.
 */
export interface ChainAdapter {
  readonly family: ChainFamily;
  generateWallet(): GeneratedWallet;
  /** The canonical form of a well-formed address of this family, or null when malformed. */
  normalizeAddress(address: string): string | null;
  /**
   * What a canonical address is when assets sent to it are lost (a program, a sysvar, the zero
   * address: "the System program"), or null when nothing is known against it.
   */
  lostRecipient(address: string): string | null;
  /** Native balance in the smallest unit (lamports, wei). */
  getNativeBalance(network: NetworkDefinition, address: string): Promise<bigint>;
  /** Local chains only: gives the address native currency to pay fees with. */
  fundForDevelopment(network: NetworkDefinition, address: string): Promise<void>;
  /** Resolves when the network's RPC answers (any of its endpoints). */
  ping(network: NetworkDefinition): Promise<void>;
  /**
   * Asks each RPC endpoint of the network on its own, records which answered (a dead one is
   * passed over by later calls), and reports them all.
   */
  probeEndpoints(network: NetworkDefinition, timeoutMs: number): Promise<EndpointHealth[]>;
}
