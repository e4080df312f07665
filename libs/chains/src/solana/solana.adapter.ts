import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  type AccountInfo,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { ChainAdapter, GeneratedWallet } from '../chain-adapter';
import type { NetworkDefinition, SolanaNetworkDefinition } from '../networks/network-definition';
import { RpcEndpointPool, takenOutMessage, type EndpointHealth } from '../rpc-endpoint-pool';
import { rpcUnavailable, withTimeout } from '../rpc-error';
import {
  SignatureStatusBatcher,
  type SignatureStatus,
  type SolanaCommitment,
  type TransactionErrorJson,
} from './signature-status.batcher';
import {
  SolanaRpcClient,
  SolanaRpcError,
  SolanaTransportError,
  type SolanaRpc,
} from './solana-rpc.client';
import type { RentOf } from './token2022-instructions';
import { solanaLostRecipient } from './solana-known-accounts';

const BASE58_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const DEV_FUNDING_LAMPORTS = 100 * LAMPORTS_PER_SOL;
/** A blockhash is reused this long: every send of a burst shares one getLatestBlockhash. */
const BLOCKHASH_CACHE_MS = 250;
/**
 * Recent prioritization fees are reused this long (per network and account set): a burst of
 * signings shares one lookup, and a re-signing a blockhash's lifetime later reads fresh ones.
 */
const PRIORITY_FEES_CACHE_MS = 1_000;
/** JSON-RPC code of a refused preflight (the error carries the simulation). */
const PREFLIGHT_FAILURE = -32002;
/** Node-side conditions that pass (unhealthy or lagging node, rate limit): retried, not refusals. */
const TRANSIENT_CODES = new Set([-32005, -32016, 429]);

export interface RecentBlockhash {
  blockhash: string;
  lastValidBlockHeight: bigint;
}

export interface SimulationOutcome {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
}

/** What the node said to signed bytes. */
export type SolanaSendResult =
  | { kind: 'accepted' }
  /** The node does not know the blockhash (expired, or the node lags): not executed. */
  | { kind: 'blockhash-not-found' }
  /**
   * Refused: preflight says it would fail (`err`: how), or the node rejected the request itself
   * (`err` null, e.g. a bad signature). Not executed, nothing charged.
   */
  | { kind: 'refused'; err: TransactionErrorJson | null; logs: string[]; message: string };

/** One RPC endpoint of a Solana network. */
interface SolanaEndpoint {
  rpc: SolanaRpcClient;
  /** web3.js, for what the lean client does not do (confirming a development airdrop). */
  connection: Connection;
}

interface NetworkClients {
  endpoints: RpcEndpointPool<SolanaEndpoint>;
  /** JSON-RPC calls that fail over between the endpoints on a transport failure. */
  rpc: SolanaRpc;
  statuses: SignatureStatusBatcher;
  blockhash?: { at: number; value: Promise<RecentBlockhash> };
  rentPerByte?: Promise<bigint>;
}

@Injectable()
export class SolanaAdapter implements ChainAdapter {
  readonly family = 'solana' as const;
  private readonly logger = new Logger(SolanaAdapter.name);
  private readonly clients = new Map<string, NetworkClients>();
  private readonly priorityFees = new Map<string, { at: number; value: Promise<number[]> }>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  generateWallet(): GeneratedWallet {
    const keypair = Keypair.generate();
    return {
      publicKey: keypair.publicKey.toBase58(),
      secretKey: bs58.encode(keypair.secretKey),
      secretBytes: keypair.secretKey,
    };
  }

  /**
   * The address as web3.js writes a key: its 32 bytes in base58, which is the address itself
   * once it decodes to 32 bytes (base58 has one spelling of a byte string: leading '1's are its
   * zero bytes, the rest a number without leading zeros). One decode: a PublicKey and its
   * toBase58() cost three times as much, for each of an airdrop's 10,000 recipients.
   */
  normalizeAddress(address: string): string | null {
    if (!BASE58_KEY.test(address)) return null;
    try {
      return bs58.decode(address).length === 32 ? address : null;
    } catch {
      return null;
    }
  }

  lostRecipient(address: string): string | null {
    return solanaLostRecipient(address);
  }

  async getNativeBalance(network: NetworkDefinition, address: string): Promise<bigint> {
    const definition = asSolana(network);
    const { value } = await this.call(
      definition,
      this.rpc<{ value: number }>(definition, 'getBalance', [
        new PublicKey(address).toBase58(),
        { commitment: 'confirmed' },
      ]),
    );
    return BigInt(value);
  }

  async fundForDevelopment(network: NetworkDefinition, address: string): Promise<void> {
    const definition = asSolana(network);
    const signature = await this.call(
      definition,
      this.rpc<string>(definition, 'requestAirdrop', [
        new PublicKey(address).toBase58(),
        DEV_FUNDING_LAMPORTS,
      ]),
    );
    const connection = this.connection(definition);
    const latest = await this.call(definition, connection.getLatestBlockhash('confirmed'));
    await this.call(
      definition,
      connection.confirmTransaction({ signature, ...latest }, 'confirmed'),
    );
  }

  async ping(network: NetworkDefinition): Promise<void> {
    const definition = asSolana(network);
    await this.call(definition, this.rpc(definition, 'getSlot', [{ commitment: 'confirmed' }]));
  }

  async probeEndpoints(network: NetworkDefinition, timeoutMs: number): Promise<EndpointHealth[]> {
    const { endpoints } = this.clientsOf(asSolana(network));
    const ping = (endpoint: SolanaEndpoint) => endpoint.rpc.call('getSlot', []);
    await Promise.all(
      endpoints
        .clients()
        .map((_, index) => endpoints.attempt(index, ping, timeoutMs).catch(() => undefined)),
    );
    return endpoints.report();
  }

  /** web3.js on the endpoint in use now (the first that is up). */
  connection(network: SolanaNetworkDefinition): Connection {
    return this.clientsOf(network).endpoints.active().connection;
  }

  // -------------------------------------------------------------------------------------------
  // The send path: blockhash, simulation, sending signed bytes, statuses, block height
  // -------------------------------------------------------------------------------------------

  /** The latest blockhash at the configured commitment, shared for a moment across sends. */
  latestBlockhash(network: SolanaNetworkDefinition): Promise<RecentBlockhash> {
    const clients = this.clientsOf(network);
    const cached = clients.blockhash;
    if (cached && Date.now() - cached.at < BLOCKHASH_CACHE_MS) return cached.value;
    const value = this.rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>(
      network,
      'getLatestBlockhash',
      [{ commitment: this.config.solana.commitment }],
    ).then(({ value: latest }) => ({
      blockhash: latest.blockhash,
      lastValidBlockHeight: BigInt(latest.lastValidBlockHeight),
    }));
    clients.blockhash = { at: Date.now(), value };
    value.catch(() => {
      if (clients.blockhash?.value === value) clients.blockhash = undefined;
    });
    return value;
  }

  /**
   * The compute-unit prices (micro-lamports) recent slots took to land a transaction writing
   * these accounts, one per slot (getRecentPrioritizationFees). A node that refuses the method
   * (a JSON-RPC error: not offered, or rate-limited) answers nothing, and the floor is paid; a
   * node that cannot be reached fails the signing like any other read.
   */
  recentPrioritizationFees(
    network: SolanaNetworkDefinition,
    writable: string[],
  ): Promise<number[]> {
    const key = `${network.chainKey}|${[...writable].sort().join(',')}`;
    const now = Date.now();
    const cached = this.priorityFees.get(key);
    if (cached && now - cached.at < PRIORITY_FEES_CACHE_MS) return cached.value;
    // Entries sit in the order they were made: the stale ones are at the front.
    for (const [old, entry] of this.priorityFees) {
      if (now - entry.at < PRIORITY_FEES_CACHE_MS) break;
      this.priorityFees.delete(old);
    }
    const value = this.rpc<{ slot: number; prioritizationFee: number }[]>(
      network,
      'getRecentPrioritizationFees',
      [writable],
    ).then(
      (slots) => slots.map((slot) => slot.prioritizationFee),
      (error: unknown) => {
        if (error instanceof SolanaRpcError) return [];
        if (this.priorityFees.get(key)?.value === value) this.priorityFees.delete(key);
        throw error;
      },
    );
    this.priorityFees.delete(key);
    this.priorityFees.set(key, { at: now, value });
    return value;
  }

  /** Runs unsigned wire bytes against the current state (no signature check, fresh blockhash). */
  async simulate(network: SolanaNetworkDefinition, wire: Buffer): Promise<SimulationOutcome> {
    const { value } = await this.rpc<{
      value: { err: TransactionErrorJson | null; logs: string[] | null; unitsConsumed?: number };
    }>(network, 'simulateTransaction', [
      wire.toString('base64'),
      {
        encoding: 'base64',
        sigVerify: false,
        replaceRecentBlockhash: true,
        commitment: this.config.solana.commitment,
      },
    ]);
    return { err: value.err, logs: value.logs ?? [], unitsConsumed: value.unitsConsumed ?? 0 };
  }

  /**
   * Sends signed bytes. With preflight the node simulates first and refuses what would fail;
   * re-sends skip it (the original may already have landed). Throws SolanaTransportError when
   * the node could not be reached: the bytes may or may not have arrived.
   */
  async send(
    network: SolanaNetworkDefinition,
    wire: Buffer | string,
    options: { preflight: boolean },
  ): Promise<SolanaSendResult> {
    try {
      // On a transport failure the same bytes go to the next endpoint: same signature, so at
      // most one transaction whichever endpoints received them.
      await this.clientsOf(network).rpc.call<string>('sendTransaction', [
        typeof wire === 'string' ? wire : wire.toString('base64'),
        {
          encoding: 'base64',
          skipPreflight: !options.preflight,
          preflightCommitment: this.config.solana.commitment,
          maxRetries: 0,
        },
      ]);
      return { kind: 'accepted' };
    } catch (error) {
      if (!(error instanceof SolanaRpcError) || TRANSIENT_CODES.has(error.code)) throw error;
      const data = (error.data ?? {}) as { err?: TransactionErrorJson; logs?: string[] | null };
      if (data.err === 'BlockhashNotFound' || /blockhash not found/i.test(error.message)) {
        return { kind: 'blockhash-not-found' };
      }
      if (data.err === 'AlreadyProcessed' || /already.*processed/i.test(error.message)) {
        return { kind: 'accepted' };
      }
      if (error.code === PREFLIGHT_FAILURE && data.err != null) {
        return { kind: 'refused', err: data.err, logs: data.logs ?? [], message: error.message };
      }
      return { kind: 'refused', err: null, logs: [], message: error.message };
    }
  }

  /** The status of a signature, from recent statuses or history; null while it has not landed. */
  signatureStatus(
    network: SolanaNetworkDefinition,
    signature: string,
  ): Promise<SignatureStatus | null> {
    return this.clientsOf(network).statuses.status(signature);
  }

  async blockHeight(
    network: SolanaNetworkDefinition,
    commitment: SolanaCommitment,
  ): Promise<bigint> {
    return BigInt(await this.rpc<number>(network, 'getBlockHeight', [{ commitment }]));
  }

  /** Accounts at the configured commitment, null where none exists (one getMultipleAccounts). */
  async accounts(
    network: SolanaNetworkDefinition,
    addresses: PublicKey[],
  ): Promise<(AccountInfo<Buffer> | null)[]> {
    const { value } = await this.rpc<{
      value: ({
        data: [string, string];
        executable: boolean;
        lamports: number;
        owner: string;
        rentEpoch?: number;
      } | null)[];
    }>(network, 'getMultipleAccounts', [
      addresses.map((address) => address.toBase58()),
      { encoding: 'base64', commitment: this.config.solana.commitment },
    ]);
    return value.map((account) =>
      account
        ? {
            data: Buffer.from(account.data[0], 'base64'),
            executable: account.executable,
            lamports: account.lamports,
            owner: new PublicKey(account.owner),
            rentEpoch: account.rentEpoch,
          }
        : null,
    );
  }

  /** The token account holding the most of a mint (an item's holder), if any. */
  async largestTokenAccount(
    network: SolanaNetworkDefinition,
    mint: PublicKey,
  ): Promise<PublicKey | null> {
    const { value } = await this.rpc<{ value: { address: string; amount: string }[] }>(
      network,
      'getTokenLargestAccounts',
      [mint.toBase58(), { commitment: this.config.solana.commitment }],
    );
    const top = value.find((entry) => entry.amount !== '0');
    return top ? new PublicKey(top.address) : null;
  }

  /**
   * The rent-exempt minimum by size. Rent is linear in (128 + size), so one RPC per network
   * gives the rate and every size after that is computed locally.
   */
  async rentOf(network: SolanaNetworkDefinition): Promise<RentOf> {
    const clients = this.clientsOf(network);
    clients.rentPerByte ??= this.rpc<number>(network, 'getMinimumBalanceForRentExemption', [0])
      .then((base) => BigInt(base) / 128n)
      .catch((error: unknown) => {
        clients.rentPerByte = undefined;
        throw error;
      });
    const perByte = await clients.rentPerByte;
    return (length) => (128n + BigInt(length)) * perByte;
  }

  /** A JSON-RPC call for reads: any failure is the client's 502. */
  async read<T>(network: SolanaNetworkDefinition, work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch {
      throw rpcUnavailable(network.network);
    }
  }

  private rpc<T>(network: SolanaNetworkDefinition, method: string, params: unknown[]): Promise<T> {
    return this.clientsOf(network).rpc.call<T>(method, params);
  }

  private clientsOf(network: SolanaNetworkDefinition): NetworkClients {
    // One set of clients per node list: networks on the same endpoints share it (and its health).
    const key = network.rpcUrls.join(',');
    let clients = this.clients.get(key);
    if (!clients) {
      const { rpcTimeoutMs, rpcFailoverCooldownMs } = this.config.chains;
      const endpoints = new RpcEndpointPool<SolanaEndpoint>(
        network.rpcUrls.map((url) => ({
          url,
          client: {
            rpc: new SolanaRpcClient(url, rpcTimeoutMs),
            connection: new Connection(url, {
              commitment: 'confirmed',
              wsEndpoint: network.wsUrl,
              disableRetryOnRateLimit: true,
            }),
          },
        })),
        {
          cooldownMs: rpcFailoverCooldownMs,
          attemptTimeoutMs: rpcTimeoutMs,
          isTransportFailure: (error) => error instanceof SolanaTransportError,
          timeoutError: (ms) => new SolanaTransportError(`no answer in ${ms} ms`),
          onTakenOut: (endpoint, error) =>
            this.logger.warn(
              takenOutMessage(network.network, endpoint, error, rpcFailoverCooldownMs),
            ),
        },
      );
      const rpc: SolanaRpc = {
        call: (method, params) => endpoints.run((endpoint) => endpoint.rpc.call(method, params)),
      };
      clients = { endpoints, rpc, statuses: new SignatureStatusBatcher(rpc) };
      this.clients.set(key, clients);
    }
    return clients;
  }

  /**
   * Bounds a call. Each endpoint's attempt is bounded by RPC_TIMEOUT_MS, so a call that fails
   * over may take that long once per endpoint.
   */
  private call<T>(network: SolanaNetworkDefinition, work: Promise<T>): Promise<T> {
    const budgetMs = this.config.chains.rpcTimeoutMs * network.rpcUrls.length;
    return withTimeout(work, budgetMs, network.network);
  }

  /** After the worker's jobs have finished (they close in beforeApplicationShutdown). */
  onApplicationShutdown(): void {
    for (const clients of this.clients.values()) {
      for (const endpoint of clients.endpoints.clients()) endpoint.rpc.close();
    }
  }
}

export function asSolana(network: NetworkDefinition): SolanaNetworkDefinition {
  if (network.family !== 'solana') throw new Error(`${network.network} is not Solana`);
  return network;
}
