import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  Network as EthersNetwork,
  type JsonRpcProvider,
  Wallet,
  getAddress,
  keccak256,
  parseEther,
} from 'ethers';
import { AppError, METRICS, type AssetIntent } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { ChainAdapter, GeneratedWallet } from '../chain-adapter';
import type { EvmNetworkDefinition, NetworkDefinition } from '../networks/network-definition';
import { takenOutMessage, type EndpointHealth } from '../rpc-endpoint-pool';
import { withTimeout } from '../rpc-error';
import { withMinimumTip } from './evm-fee-bump';
import { classifyRefusal, type BroadcastResult } from './evm-refusal';
import { revertToAppError } from './evm-revert';
import { evmLostRecipient } from './evm-known-accounts';
import { evmReceiptOf, type EvmReceipt, type RawEvmReceipt } from './evm-receipt';
import {
  hexOf,
  signedTransactionBytes,
  unsignedTransactionBytes,
  type EvmTransactionFields,
} from './evm-transaction-bytes';
import type { EvmKey } from '../signers/wallet-keys';
import { FailoverJsonRpcProvider, WrongChainError } from './failover-json-rpc.provider';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DEV_FUNDING = parseEther('100');
const FEE_CACHE_MS = 2_000;
const CHECKSUMMED_ADDRESSES = 10_000;

export type FeeFields =
  { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { gasPrice: bigint };

export interface UnsignedEvmTransaction {
  to: string | null;
  data: string;
  gasLimit: bigint;
  nonce: bigint;
}

@Injectable()
export class EvmAdapter implements ChainAdapter {
  readonly family = 'evm' as const;
  private readonly logger = new Logger(EvmAdapter.name);
  private readonly providers = new Map<string, FailoverJsonRpcProvider>();
  private readonly feeCache = new Map<string, { at: number; fees: FeeFields }>();
  /** By node (chain key): the smallest tip it has said it takes (it refused one under it). */
  private readonly minimumTips = new Map<string, bigint>();
  /** Checksumming is a keccak hash, once per address on every request that names one. */
  private readonly checksummed = new Map<string, string>();

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
    if (!EVM_ADDRESS.test(address)) return null;
    const lower = address.toLowerCase();
    let canonical = this.checksummed.get(lower);
    if (canonical === undefined) {
      canonical = getAddress(lower);
      if (this.checksummed.size >= CHECKSUMMED_ADDRESSES) this.checksummed.clear();
      this.checksummed.set(lower, canonical);
    }
    return canonical;
  }

  lostRecipient(address: string): string | null {
    return evmLostRecipient(address);
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

  probeEndpoints(network: NetworkDefinition, timeoutMs: number): Promise<EndpointHealth[]> {
    return this.failover(asEvm(network)).probeEndpoints(timeoutMs);
  }

  async pendingNonce(network: EvmNetworkDefinition, address: string): Promise<bigint> {
    const count = await this.call(
      network,
      this.provider(network).getTransactionCount(address, 'pending'),
    );
    return BigInt(count);
  }

  /**
   * The wallet's balance with its pool's transactions applied (what is left for new ones; nodes
   * that keep no pending state answer the latest balance).
   */
  async pendingBalance(network: EvmNetworkDefinition, address: string): Promise<bigint> {
    return this.call(network, this.provider(network).getBalance(address, 'pending'));
  }

  /** How many of the wallet's transactions are mined: a nonce below it is spent for good. */
  async minedNonce(network: EvmNetworkDefinition, address: string): Promise<bigint> {
    const count = await this.call(
      network,
      this.provider(network).getTransactionCount(address, 'latest'),
    );
    return BigInt(count);
  }

  /**
   * Fee fields for the network's fee model, cached briefly: every send of a burst shares them.
   * Keyed by chain and fee model: two networks on one node may price differently.
   */
  async fees(network: EvmNetworkDefinition): Promise<FeeFields> {
    const key = `${network.chainKey}|${network.feeModel}`;
    const cached = this.feeCache.get(key);
    if (cached && Date.now() - cached.at < FEE_CACHE_MS)
      return this.atMinimumTip(network, cached.fees);
    const data = await this.call(network, this.provider(network).getFeeData());
    const fees: FeeFields =
      network.feeModel === 'eip1559' && data.maxFeePerGas != null
        ? { maxFeePerGas: data.maxFeePerGas, maxPriorityFeePerGas: data.maxPriorityFeePerGas ?? 0n }
        : { gasPrice: data.gasPrice ?? 0n };
    this.feeCache.set(key, { at: Date.now(), fees });
    return this.atMinimumTip(network, fees);
  }

  /**
   * Fees raised to the smallest tip the network's node has said it takes: the market's
   * estimate (eth_maxPriorityFeePerGas, eth_gasPrice) can sit under a node's floor (geth's
   * `--txpool.pricelimit`, Polygon's protocol minimum), and every send would be refused.
   */
  private atMinimumTip(network: EvmNetworkDefinition, fees: FeeFields): FeeFields {
    const minimumTip = this.minimumTips.get(network.chainKey);
    return minimumTip === undefined ? fees : withMinimumTip(fees, minimumTip);
  }

  /** Signs with `key` (EvmKey: decrypted for the moment, or in an HSM). */
  async sign(
    network: EvmNetworkDefinition,
    key: EvmKey,
    unsigned: UnsignedEvmTransaction,
    fees: FeeFields,
  ): Promise<{ signedTx: string; hash: string }> {
    const fields: EvmTransactionFields = {
      type: 'gasPrice' in fees ? 0 : 2,
      chainId: BigInt(network.chainId),
      to: unsigned.to,
      data: unsigned.data,
      nonce: unsigned.nonce,
      gasLimit: unsigned.gasLimit,
      ...fees,
    };
    const signature = await key.signDigest(keccak256(unsignedTransactionBytes(fields)));
    const signed = signedTransactionBytes(fields, signature);
    return { signedTx: hexOf(signed), hash: keccak256(signed) };
  }

  /**
   * Sends signed bytes. Throws only when the node could not be reached (ambiguous: retry). Sent
   * raw, as a batch of one: ethers' own `send` turns some refusals into errors of its own
   * ("insufficient funds for intrinsic transaction cost", NONCE_EXPIRED) that hide the node's
   * words.
   */
  async broadcast(network: EvmNetworkDefinition, signedTx: string): Promise<BroadcastResult> {
    const [result] = await this.broadcastMany(network, [signedTx]);
    return result;
  }

  /**
   * Sends many signed transactions in one JSON-RPC batch, in order (nodes take a batch's calls
   * in order, so nonces arrive in sequence). One result per transaction; throws only when the
   * node could not be reached.
   */
  async broadcastMany(
    network: EvmNetworkDefinition,
    signedTxs: string[],
  ): Promise<BroadcastResult[]> {
    if (signedTxs.length === 0) return [];
    const payload = signedTxs.map((tx, id) => ({
      jsonrpc: '2.0' as const,
      id,
      method: 'eth_sendRawTransaction',
      params: [tx],
    }));
    const answers = await this.call(network, this.provider(network)._send(payload), true);
    const byId = new Map(answers.map((answer) => [Number(answer.id), answer]));
    return signedTxs.map((_, id) => {
      const answer = byId.get(id);
      if (!answer) return { kind: 'rejected', message: 'no answer for this transaction' };
      if (!('error' in answer)) return { kind: 'accepted' };
      const { message } = answer.error as { message?: unknown };
      return this.refusal(network, String(message));
    });
  }

  /** What a refusal means; a minimum tip the node names is offered from now on (see fees). */
  private refusal(network: EvmNetworkDefinition, message: string): BroadcastResult {
    const result = classifyRefusal(message);
    if (result.kind === 'rejected' && result.unrecognised) {
      METRICS.unrecognisedRefusals.inc({ family: 'evm', kind: 'broadcast' });
    }
    if (result.kind === 'underpriced' && result.minimumTip !== undefined) {
      const known = this.minimumTips.get(network.chainKey) ?? 0n;
      if (result.minimumTip > known) {
        this.minimumTips.set(network.chainKey, result.minimumTip);
        this.logger.warn(
          `The ${network.network} node takes no tip under ${result.minimumTip} wei: fees are raised to it from now on`,
        );
      }
    }
    return result;
  }

  async blockNumber(network: EvmNetworkDefinition): Promise<number> {
    return Number(await this.call(network, this.provider(network).send('eth_blockNumber', [])));
  }

  /**
   * The hashes of the transactions in each of these blocks (one JSON-RPC batch; raw, without
   * ethers' block formatting); null for a block the node does not have (yet).
   */
  async blockTransactionHashes(
    network: EvmNetworkDefinition,
    blocks: number[],
  ): Promise<Array<string[] | null>> {
    if (blocks.length === 0) return [];
    const payload = blocks.map((block, id) => ({
      jsonrpc: '2.0' as const,
      id,
      method: 'eth_getBlockByNumber',
      params: [`0x${block.toString(16)}`, false],
    }));
    const answers = await this.call(network, this.provider(network)._send(payload), true);
    const byId = new Map(answers.map((answer) => [Number(answer.id), answer]));
    return blocks.map((_, id) => {
      const answer = byId.get(id);
      if (!answer || 'error' in answer) throw new Error(`No block ${blocks[id]} from the node`);
      const block = answer.result as { transactions?: string[] } | null;
      return block ? (block.transactions ?? []) : null;
    });
  }

  /** The transaction's receipt, or null while it is not mined (see evmReceiptOf). */
  async receipt(network: EvmNetworkDefinition, hash: string): Promise<EvmReceipt | null> {
    const raw = await this.call(
      network,
      this.provider(network).send('eth_getTransactionReceipt', [
        hash,
      ]) as Promise<RawEvmReceipt | null>,
    );
    return raw ? evmReceiptOf(raw) : null;
  }

  /** Why a mined transaction reverted: replays it at its block and maps the custom error. */
  async revertReason(
    network: EvmNetworkDefinition,
    signer: string,
    intent: AssetIntent,
    receipt: EvmReceipt,
  ): Promise<AppError> {
    const tx = await this.call(network, this.provider(network).getTransaction(receipt.hash));
    try {
      await this.provider(network).call({
        from: signer,
        to: tx?.to ?? null,
        data: tx?.data,
        blockTag: receipt.blockNumber,
      });
    } catch (error) {
      const mapped = revertToAppError(error);
      if (mapped) return mapped;
    }
    return new AppError('BAD_GATEWAY', `The ${intent.kind} transaction reverted on chain.`);
  }

  /**
   * The network's provider. Every call through it fails over between the network's RPC
   * endpoints (see FailoverJsonRpcProvider), whoever makes it.
   */
  provider(network: EvmNetworkDefinition): JsonRpcProvider {
    return this.failover(network);
  }

  private failover(network: EvmNetworkDefinition): FailoverJsonRpcProvider {
    // One provider per node list: networks on the same endpoints share it (and its health).
    const key = `${network.chainId}|${network.rpcUrls.join(',')}`;
    let provider = this.providers.get(key);
    if (!provider) {
      const { rpcTimeoutMs, rpcFailoverCooldownMs } = this.config.chains;
      provider = new FailoverJsonRpcProvider(
        network.rpcUrls,
        EthersNetwork.from(network.chainId),
        // A fixed network skips detection calls; no response cache, or quick reads go stale;
        // requests of one tick still share a JSON-RPC batch, but none waits the default 10 ms
        // for company (ordered sends would pay it on every transaction).
        { staticNetwork: true, cacheTimeout: -1, pollingInterval: 250, batchStallTime: 0 },
        {
          cooldownMs: rpcFailoverCooldownMs,
          attemptTimeoutMs: rpcTimeoutMs,
          onTakenOut: (endpoint, error) =>
            this.logger.warn(
              takenOutMessage(network.network, endpoint, error, rpcFailoverCooldownMs) +
                // Chain ids only: other errors' messages may carry the URL, and its key.
                (error instanceof WrongChainError ? ` (${error.message})` : ''),
            ),
        },
      );
      this.providers.set(key, provider);
    }
    return provider;
  }

  /**
   * Bounds a call. Each endpoint's attempt is bounded by RPC_TIMEOUT_MS, so a call that fails
   * over may take that long once per endpoint.
   */
  private call<T>(network: EvmNetworkDefinition, work: Promise<T>, raw = false): Promise<T> {
    const budgetMs = this.config.chains.rpcTimeoutMs * network.rpcUrls.length;
    return raw
      ? withTimeout(work, budgetMs, network.network, { passThrough: true })
      : withTimeout(work, budgetMs, network.network);
  }

  /** After the worker's jobs have finished (they close in beforeApplicationShutdown). */
  onApplicationShutdown(): void {
    for (const provider of this.providers.values()) provider.destroy();
  }
}

export function asEvm(network: NetworkDefinition): EvmNetworkDefinition {
  if (network.family !== 'evm') throw new Error(`${network.network} is not an EVM network`);
  return network;
}
