import { evmReader } from '@test/support/chain-reads';
import { sleep } from './mint-client';

/** A managed wallet of each chain, and the local chains' RPC URLs (straight to the nodes). */
export interface DrainTarget {
  evm: { rpcUrl: string; wallet: string };
  solana: { rpcUrl: string; wallet: string };
}

/**
 * Takes every native unit of the account's EVM and Solana wallets for `ms`, then gives them
 * back: writes accepted meanwhile fail with 409 Insufficient funds before anything is signed,
 * and transactions signed before wait for the funds, then land. Either way none may land twice,
 * and none reported failed may land.
 */
export async function drainWallets(target: DrainTarget, ms: number): Promise<string> {
  const evm = evmReader(target.evm.rpcUrl);
  try {
    const wei = BigInt(await evm.send('eth_getBalance', [target.evm.wallet, 'latest']));
    const lamports = await solanaCall<{ value: number }>(target.solana.rpcUrl, 'getBalance', [
      target.solana.wallet,
    ]);
    await Promise.all([
      evm.send('anvil_setBalance', [target.evm.wallet, '0x0']),
      solanaCall(target.solana.rpcUrl, 'localnet_setLamports', [target.solana.wallet, 0]),
    ]);
    await sleep(ms);
    await Promise.all([
      evm.send('anvil_setBalance', [target.evm.wallet, `0x${wei.toString(16)}`]),
      solanaCall(target.solana.rpcUrl, 'localnet_setLamports', [
        target.solana.wallet,
        lamports.value,
      ]),
    ]);
    return `both wallets empty for ${ms} ms, then refunded (${wei} wei, ${lamports.value} lamports)`;
  } finally {
    evm.destroy();
  }
}

async function solanaCall<T = unknown>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
