import { Wallet } from 'ethers';
import { startAnvil, type AnvilHandle } from '@app/localnet/anvil';
import { jsonRpc, mineEvmBlocks, setEvmBalance } from '@test/support/chain-control';
import { refundEvmWallet } from '../../chaos/wallet-drain';

jest.setTimeout(30_000);

/**
 * The chaos run's "wallets drained" fault, then an EVM reorg right after the refund (seed
 * 1665609069 of CI at e308355): the refund must outlive the reorg, or the mints waiting for
 * funds never land and the run reports them lost.
 */
describe('an EVM refund in the chaos run, then a reorg', () => {
  const REORG_DEPTH = 2;
  const REFUND = 10n ** 18n;
  let anvil: AnvilHandle;

  beforeAll(async () => {
    anvil = await startAnvil({ port: 0 });
  });

  afterAll(() => anvil.stop());

  const balanceOf = async (wallet: string) =>
    BigInt(await jsonRpc<string>(anvil.url, 'eth_getBalance', [wallet, 'latest']));

  /** Funded, drained, blocks mined while empty, refunded, then the newest blocks replaced. */
  async function drainRefundReorg(refundDepth: number): Promise<bigint> {
    const wallet = Wallet.createRandom().address;
    await setEvmBalance(anvil.url, wallet, REFUND);
    await mineEvmBlocks(anvil.url, 1);
    await setEvmBalance(anvil.url, wallet, 0n);
    await mineEvmBlocks(anvil.url, REORG_DEPTH + 1);
    await refundEvmWallet({ rpcUrl: anvil.url, wallet, reorgDepth: refundDepth }, REFUND);
    expect(await balanceOf(wallet)).toBe(REFUND);
    await jsonRpc(anvil.url, 'anvil_reorg', [REORG_DEPTH, []]);
    return balanceOf(wallet);
  }

  it('keeps the refund when told the depth reorgs reach', async () => {
    expect(await drainRefundReorg(REORG_DEPTH)).toBe(REFUND);
  });

  it('loses it to the reorg when no block buries it (why the depth is passed)', async () => {
    expect(await drainRefundReorg(0)).toBe(0n);
  });
});
