/**
 * The local chains' development methods, as the tests and the chaos run use them to put a
 * managed wallet in a state (drained, refunded): anvil's `anvil_setBalance` and the Solana
 * localnet's `localnet_setLamports`.
 */

/** One JSON-RPC call; its result, or an Error carrying the node's error. */
export async function jsonRpc<T = unknown>(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const reply = (await response.json()) as { result?: T; error?: unknown };
  if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result as T;
}

/** An EVM account's balance becomes exactly `wei` (anvil). */
export function setEvmBalance(evmRpcUrl: string, address: string, wei: bigint): Promise<unknown> {
  return jsonRpc(evmRpcUrl, 'anvil_setBalance', [address, `0x${wei.toString(16)}`]);
}

/** Mines `blocks` blocks at once (anvil), whatever its mining mode. */
export function mineEvmBlocks(evmRpcUrl: string, blocks: number): Promise<unknown> {
  return jsonRpc(evmRpcUrl, 'anvil_mine', [`0x${blocks.toString(16)}`]);
}

/** A Solana account's balance becomes exactly `lamports` (the localnet). */
export function setLamports(
  solanaRpcUrl: string,
  address: string,
  lamports: number,
): Promise<unknown> {
  return jsonRpc(solanaRpcUrl, 'localnet_setLamports', [address, lamports]);
}
