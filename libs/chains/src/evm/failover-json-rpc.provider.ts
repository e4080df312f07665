import {
  JsonRpcProvider,
  type JsonRpcApiProviderOptions,
  type JsonRpcPayload,
  type JsonRpcResult,
  type Network,
} from 'ethers';
import {
  RpcEndpointPool,
  type EndpointHealth,
  type EndpointPoolOptions,
} from '../rpc-endpoint-pool';
import { JsonRpcHttpEndpoint } from './json-rpc-http-endpoint';

/**
 * One ethers provider over several RPC endpoints of one chain. Everything ethers sends goes
 * through `_send`, one HTTP request (a single call or a batch): here it goes to the pool, which
 * sends it to the first endpoint that is up and on a transport failure to the next. So every
 * caller of the provider (reads, gas estimates, contract calls, raw batches of signed
 * transactions) fails over, not only the adapter's own methods.
 *
 * ethers returns a node's JSON-RPC error answers from `_send` (it maps them afterwards); only a
 * failed request throws there: an unreachable endpoint, a reset, a timeout, an HTTP error status.
 * Those are the transport failures that take an endpoint out.
 *
 * So is an endpoint of another chain (a URL for the wrong network, a node switched over): before
 * its first call, an endpoint is asked for its chain id (again after a failed ask), and one that
 * serves another chain is passed over, so that no read of this network comes from another chain
 * and no transaction is sent there. The network's id is fixed, so ethers does not ask itself.
 */
export class FailoverJsonRpcProvider extends JsonRpcProvider {
  private readonly endpoints: RpcEndpointPool<JsonRpcHttpEndpoint>;
  private readonly chainId: bigint;
  /** By endpoint: its chain id's check, made once (made again after it failed). */
  private readonly onChain = new Map<JsonRpcHttpEndpoint, Promise<void>>();

  constructor(
    urls: readonly string[],
    network: Network,
    options: JsonRpcApiProviderOptions,
    pool: Omit<EndpointPoolOptions, 'isTransportFailure' | 'timeoutError'>,
  ) {
    super(urls[0], network, options);
    this.chainId = network.chainId;
    this.endpoints = new RpcEndpointPool(
      urls.map((url) => ({ url, client: new JsonRpcHttpEndpoint(url, pool.attemptTimeoutMs) })),
      { ...pool, isTransportFailure: () => true },
    );
  }

  override _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    return this.endpoints.run(async (endpoint) => {
      await this.checkedChain(endpoint);
      return endpoint.send(payload);
    });
  }

  private checkedChain(endpoint: JsonRpcHttpEndpoint): Promise<void> {
    let check = this.onChain.get(endpoint);
    if (!check) {
      check = this.askChain(endpoint);
      check.catch(() => this.onChain.delete(endpoint));
      this.onChain.set(endpoint, check);
    }
    return check;
  }

  /** Throws WrongChainError when the endpoint names another chain than the network's. */
  private async askChain(endpoint: JsonRpcHttpEndpoint): Promise<void> {
    const [answer] = await endpoint.send(CHAIN_ID_CALL);
    // A node that will not say is not known to be wrong: its answers to the calls will tell.
    if (!answer || 'error' in answer) return;
    const served = BigInt(answer.result as string);
    if (served !== this.chainId) throw new WrongChainError(this.chainId, served);
  }

  /**
   * Asks every endpoint for the chain id (each on its own, not failing over), records what
   * answered for this chain and what did not, and reports them all.
   */
  async probeEndpoints(timeoutMs: number): Promise<EndpointHealth[]> {
    await Promise.all(
      this.endpoints
        .clients()
        .map((_, index) =>
          this.endpoints
            .attempt(index, (endpoint) => this.askChain(endpoint), timeoutMs)
            .catch(() => undefined),
        ),
    );
    return this.endpoints.report();
  }

  override destroy(): void {
    for (const endpoint of this.endpoints.clients()) endpoint.destroy();
    super.destroy();
  }
}

const CHAIN_ID_CALL = { jsonrpc: '2.0' as const, id: 1, method: 'eth_chainId', params: [] };

/** An endpoint answering for another chain than its network's (it is passed over). */
export class WrongChainError extends Error {
  readonly code = 'WRONG_CHAIN';

  constructor(expected: bigint, served: bigint) {
    super(`it serves chain ${served}, not ${expected}`);
    this.name = 'WrongChainError';
  }
}
