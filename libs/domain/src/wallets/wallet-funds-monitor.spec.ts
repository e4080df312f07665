import { NetworkRegistry, type ChainRegistry } from '@app/chains';
import { loadConfig } from '@app/config';
import type { WalletFundsRepository, WatchedWallet } from '@app/database';
import { WalletFundsMonitor } from './wallet-funds-monitor';
import type { WalletFundsRecorder } from './wallet-funds-recorder';

const EVM_WALLET = '0x00000000000000000000000000000000000000a1';
const ACCOUNT = '7b0c3f0e-0000-4000-8000-000000000001';

/** The monitor over fakes: a chain answering 5 for every balance, one managed EVM wallet. */
function monitorWith(owner: string | null = ACCOUNT) {
  const getNativeBalance = jest.fn(async () => 5n);
  const adapter = {
    normalizeAddress: (address: string) =>
      address.startsWith('0x') ? address.toLowerCase() : null,
    getNativeBalance,
  };
  const chains = { adapter: () => adapter };
  const funds = {
    managedWalletOwner: jest.fn(async () => owner),
    listToCheck: jest.fn(async (): Promise<WatchedWallet[]> => []),
  };
  const recorded: { wallet: WatchedWallet; balance: bigint }[] = [];
  const recorder = {
    record: jest.fn(async (wallet: WatchedWallet, balance: bigint) => {
      recorded.push({ wallet, balance });
    }),
  };
  const monitor = new WalletFundsMonitor(
    new NetworkRegistry(loadConfig({})),
    chains as unknown as ChainRegistry,
    funds as unknown as WalletFundsRepository,
    recorder as unknown as WalletFundsRecorder,
  );
  return { monitor, getNativeBalance, funds, recorded };
}

describe('WalletFundsMonitor.checkSoon', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reads a wallet named several times in a burst once, a little later', async () => {
    const { monitor, getNativeBalance, recorded } = monitorWith();
    monitor.checkSoon('base', EVM_WALLET);
    monitor.checkSoon('base', EVM_WALLET);
    expect(getNativeBalance).not.toHaveBeenCalled();

    await jest.advanceTimersByTimeAsync(1_000);
    await monitor.onModuleDestroy();
    expect(getNativeBalance).toHaveBeenCalledTimes(1);
    expect(recorded).toEqual([
      { wallet: { accountId: ACCOUNT, network: 'base', address: EVM_WALLET }, balance: 5n },
    ]);
  });

  it('resolves `evm` to the default network', async () => {
    const { monitor, recorded } = monitorWith();
    monitor.checkSoon('evm', EVM_WALLET);
    await jest.advanceTimersByTimeAsync(1_000);
    await monitor.onModuleDestroy();
    expect(recorded.map(({ wallet }) => wallet.network)).toEqual(['base']);
  });

  it('ignores what names no managed wallet: an unknown network, a malformed or unmanaged address', async () => {
    const unmanaged = monitorWith(null);
    unmanaged.monitor.checkSoon('base', EVM_WALLET);
    const { monitor, getNativeBalance } = monitorWith();
    monitor.checkSoon('moon', EVM_WALLET);
    monitor.checkSoon('base', 'not-an-address');
    await jest.advanceTimersByTimeAsync(1_000);
    await Promise.all([monitor.onModuleDestroy(), unmanaged.monitor.onModuleDestroy()]);
    expect(getNativeBalance).not.toHaveBeenCalled();
    expect(unmanaged.getNativeBalance).not.toHaveBeenCalled();
  });

  it('never throws, even when the lookup fails', async () => {
    const { monitor, funds } = monitorWith();
    funds.managedWalletOwner.mockRejectedValue(new Error('database down'));
    expect(() => monitor.checkSoon('base', EVM_WALLET)).not.toThrow();
    await jest.advanceTimersByTimeAsync(1_000);
    await expect(monitor.onModuleDestroy()).resolves.toBeUndefined();
  });
});
