import { jsonRpc, mineEvmBlocks, setEvmBalance, setLamports } from '@test/support/chain-control';
import { sleep } from './mint-client';

/**
 * A managed wallet of each chain, and the local chains' RPC URLs (straight to the nodes);
 * `reorgDepth`: the most blocks any EVM reorg of the run replaces (0 without reorgs).
 */
export interface DrainTarget {
  evm: { rpcUrl: string; wallet: string; reorgDepth: number };
  solana: { rpcUrl: string; wallet: string };
}

/**
 * Takes every native unit of the account's EVM and Solana wallets for `ms`, then gives them
 * back: writes accepted meanwhile fail with 409 Insufficient funds before anything is signed,
 * and transactions signed before wait for the funds, then land. Either way none may land twice,
 * and none reported failed may land.
 */
export async function drainWallets(target: DrainTarget, ms: number): Promise<string> {
  const { evm, solana } = target;
  const [wei, lamports] = await Promise.all([
    jsonRpc<string>(evm.rpcUrl, 'eth_getBalance', [evm.wallet, 'latest']).then(BigInt),
    jsonRpc<{ value: number }>(solana.rpcUrl, 'getBalance', [solana.wallet]),
  ]);
  await Promise.all([
    setEvmBalance(evm.rpcUrl, evm.wallet, 0n),
    setLamports(solana.rpcUrl, solana.wallet, 0),
  ]);
  await sleep(ms);
  await Promise.all([
    refundEvmWallet(evm, wei),
    setLamports(solana.rpcUrl, solana.wallet, lamports.value),
  ]);
  return `both wallets empty for ${ms} ms, then refunded (${wei} wei, ${lamports.value} lamports)`;
}

/**
 * Gives an EVM wallet `wei` for good. anvil keeps a balance it was set only in the blocks mined
 * after: a reorg that replaces the blocks mined since would put back the balance from before
 * (0 after a drain), and the mints waiting for funds would wait for ever. So the refund is
 * buried under one block more than any reorg replaces.
 */
export async function refundEvmWallet(evm: DrainTarget['evm'], wei: bigint): Promise<void> {
  await setEvmBalance(evm.rpcUrl, evm.wallet, wei);
  if (evm.reorgDepth > 0) await mineEvmBlocks(evm.rpcUrl, evm.reorgDepth + 1);
}
