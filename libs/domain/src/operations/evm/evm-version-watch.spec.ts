import type { EvmInclusionWatcher, EvmNetworkDefinition, EvmReceipt } from '@app/chains';
import { VersionWatch, type Landed } from './evm-version-watch';

const NETWORK = { network: 'base' } as EvmNetworkDefinition;
const MINED: Landed = { receipt: {} as EvmReceipt, txHash: '0xa' };

/** A block scan whose watches are told (or not) as the test says, round by round. */
function scan(told: boolean[]) {
  const registered: string[][] = [];
  const inclusion = {
    watch: (_network: EvmNetworkDefinition, hashes: string[]) => {
      registered.push(hashes);
      return { wait: () => Promise.resolve(told.shift() ?? false), cancel: () => undefined };
    },
  } as unknown as EvmInclusionWatcher;
  return { inclusion, registered };
}

describe('VersionWatch', () => {
  let now = 0;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('asks once when registered, then not again while the scan says nothing', async () => {
    const { inclusion, registered } = scan([]);
    const look = jest.fn().mockResolvedValue(null);
    const watch = new VersionWatch(inclusion, NETWORK, look);
    for (let round = 0; round < 5; round++) {
      expect(await watch.wait(['0xa'], 1_000)).toBeNull();
      now += 1_000;
    }
    expect(look).toHaveBeenCalledTimes(1);
    expect(registered).toEqual([['0xa']]);
  });

  it('asks every ten seconds without news, in case a reorg moved a version', async () => {
    const look = jest.fn().mockResolvedValue(null);
    const watch = new VersionWatch(scan([]).inclusion, NETWORK, look);
    await watch.wait(['0xa'], 1_000);
    now += 9_999;
    await watch.wait(['0xa'], 1_000);
    expect(look).toHaveBeenCalledTimes(1);
    now += 1;
    await watch.wait(['0xa'], 1_000);
    expect(look).toHaveBeenCalledTimes(2);
  });

  it('asks when told, and hands over the receipt it finds', async () => {
    const look = jest.fn().mockResolvedValueOnce(null).mockResolvedValueOnce(MINED);
    const watch = new VersionWatch(scan([true]).inclusion, NETWORK, look);
    expect(await watch.wait(['0xa'], 1_000)).toBe(MINED);
    expect(look).toHaveBeenCalledTimes(2);
  });

  it('asks at every round once told of a block whose receipt the node does not have yet', async () => {
    const { inclusion, registered } = scan([true]);
    const look = jest.fn().mockResolvedValue(null);
    const watch = new VersionWatch(inclusion, NETWORK, look);
    expect(await watch.wait(['0xa'], 1_000)).toBeNull(); // registered, told, nothing
    expect(await watch.wait(['0xa'], 1_000)).toBeNull(); // registered again: asks
    expect(await watch.wait(['0xa'], 1_000)).toBeNull(); // not told: asks all the same
    expect(look).toHaveBeenCalledTimes(4);
    expect(registered).toHaveLength(2);
  });

  it('registers again, and asks, when the versions change (a re-pricing)', async () => {
    const { inclusion, registered } = scan([]);
    const look = jest.fn().mockResolvedValue(null);
    const watch = new VersionWatch(inclusion, NETWORK, look);
    await watch.wait(['0xa'], 1_000);
    await watch.wait(['0xa', '0xb'], 1_000);
    expect(registered).toEqual([['0xa'], ['0xa', '0xb']]);
    expect(look).toHaveBeenLastCalledWith(['0xa', '0xb']);
  });

  it('hands its running registration over to a parked check, and keeps no hold on it', async () => {
    let cancelled = 0;
    const registered: string[][] = [];
    const inclusion = {
      watch: (_network: EvmNetworkDefinition, hashes: string[]) => {
        registered.push(hashes);
        return { wait: () => Promise.resolve(false), cancel: () => cancelled++ };
      },
    } as unknown as EvmInclusionWatcher;
    const watch = new VersionWatch(inclusion, NETWORK, jest.fn().mockResolvedValue(null));
    await watch.wait(['0xa'], 1_000);
    const handed = watch.handOver(['0xa']);
    watch.cancel();
    expect(cancelled).toBe(0);
    expect(registered).toEqual([['0xa']]);
    handed.cancel();
    expect(cancelled).toBe(1);
    // Nothing running any more: a fresh registration.
    watch.handOver(['0xb']);
    expect(registered).toEqual([['0xa'], ['0xb']]);
  });
});
