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
 */
export class FailoverJsonRpcProvider extends JsonRpcProvider {
  private readonly endpoints: RpcEndpointPool<JsonRpcHttpEndpoint>;

  constructor(
    urls: readonly string[],
    network: Network,
    options: JsonRpcApiProviderOptions,
    pool: Omit<EndpointPoolOptions, 'isTransportFailure' | 'timeoutError'>,
  ) {
    super(urls[0], network, options);
    this.endpoints = new RpcEndpointPool(
      urls.map((url) => ({ url, client: new JsonRpcHttpEndpoint(url, pool.attemptTimeoutMs) })),
      { ...pool, isTransportFailure: () => true },
    );
  }

  override _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    return this.endpoints.run((endpoint) => endpoint.send(payload));
  }

  /**
   * Asks every endpoint for the chain id (each on its own, not failing over), records what
   * answered and what did not, and reports them all.
   */
  async probeEndpoints(timeoutMs: number): Promise<EndpointHealth[]> {
    const ping = { jsonrpc: '2.0' as const, id: 1, method: 'eth_chainId', params: [] };
    await Promise.all(
      this.endpoints
        .clients()
        .map((_, index) =>
          this.endpoints
            .attempt(index, (endpoint) => endpoint.send(ping), timeoutMs)
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
