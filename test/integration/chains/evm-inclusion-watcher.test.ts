import { JsonRpcProvider, Wallet, parseEther, toBeHex } from 'ethers';
import { loadConfig } from '@app/config';
import {
  EvmAdapter,
  EvmInclusionWatcher,
  NetworkRegistry,
  type EvmNetworkDefinition,
} from '@app/chains';
import { startAnvil, type AnvilHandle } from '@app/localnet/anvil';
import { startJsonRpcRecorder, type JsonRpcRecorder } from '@test/support/json-rpc-recorder';

jest.setTimeout(60_000);

/** A chain that mines only when told (evm_mine), so that inclusion happens when the test says. */
describe('EvmInclusionWatcher on anvil', () => {
  let anvil: AnvilHandle;
  let recorder: JsonRpcRecorder;
  let direct: JsonRpcProvider;
  let adapter: EvmAdapter;
  let watcher: EvmInclusionWatcher;
  let network: EvmNetworkDefinition;
  let wallet: Wallet;
  let nonce = 0;

  beforeAll(async () => {
    anvil = await startAnvil({ port: 0 });
    recorder = await startJsonRpcRecorder(anvil.url);
    direct = new JsonRpcProvider(anvil.url, undefined, { cacheTimeout: -1 });
    await direct.send('evm_setAutomine', [false]);
    wallet = new Wallet(Wallet.createRandom().privateKey, direct);
    await direct.send('anvil_setBalance', [wallet.address, toBeHex(parseEther('10'))]);
    const config = loadConfig({ LOCAL_EVM_RPC_URL: recorder.url });
    adapter = new EvmAdapter(config);
    watcher = new EvmInclusionWatcher(adapter);
    network = new NetworkRegistry(config).resolve('base') as EvmNetworkDefinition;
  });

  afterAll(async () => {
    watcher.onApplicationShutdown();
    adapter.onApplicationShutdown();
    direct.destroy();
    await recorder.close();
    await anvil.stop();
  });

  const until = async (condition: () => boolean) => {
    const deadline = Date.now() + 5_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  /** Sends a transfer to the mempool (not mined until `evm_mine`); its hash. */
  const pending = async () => {
    const tx = await wallet.sendTransaction({
      to: Wallet.createRandom().address,
      value: 1n,
      nonce: nonce++,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
    return tx.hash;
  };

  it('tells a waiter once its transaction is mined, not before', async () => {
    const hash = await pending();
    const watch = watcher.watch(network, [hash.toUpperCase().replace('0X', '0x')]);
    try {
      expect(await watch.wait(300)).toBe(false); // in the mempool, no block yet
      const told = watch.wait(5_000);
      await direct.send('evm_mine', []);
      expect(await told).toBe(true);
      expect((await adapter.receipt(network, hash))?.status).toBe(1);
    } finally {
      watch.cancel();
    }
  });

  it('tells every waiter of a block from one scan, whichever of their versions was mined', async () => {
    const hashes = await Promise.all([pending(), pending(), pending()]);
    const watches = hashes.map((hash) => watcher.watch(network, [`0x${'ab'.repeat(32)}`, hash]));
    try {
      const from = recorder.calls().length;
      await direct.send('evm_mine', []);
      expect(await Promise.all(watches.map((watch) => watch.wait(5_000)))).toEqual([
        true,
        true,
        true,
      ]);
      // No receipt was asked for: the scan reads blocks, not each waiter's transaction.
      const methods = new Set(
        recorder
          .calls()
          .slice(from)
          .map((call) => call.method),
      );
      expect(methods).not.toContain('eth_getTransactionReceipt');
      expect(methods).toContain('eth_getBlockByNumber');
    } finally {
      for (const watch of watches) watch.cancel();
    }
  });

  it('tells a watch registered after its block was read, and says from when it sees every block', async () => {
    // The scan of the tests before has paused: nobody waits.
    await until(() => !watcher.seesSince(network, Date.now()));
    const beforeScan = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const keeper = watcher.watch(network, [`0x${'cd'.repeat(32)}`]); // keeps the scan running
    try {
      await until(() => watcher.seesSince(network, Date.now()));
      // Blocks mined before its first look are not the scan's: a transaction sent then is not
      // covered.
      expect(watcher.seesSince(network, beforeScan)).toBe(false);
      const sent = Date.now();
      const hash = await pending();
      const first = watcher.watch(network, [hash]);
      await direct.send('evm_mine', []);
      expect(await first.wait(5_000)).toBe(true);
      first.cancel();

      const from = recorder.calls().length;
      const later = watcher.watch(network, [hash]);
      try {
        expect(watcher.seesSince(network, sent)).toBe(true);
        expect(await later.wait(50)).toBe(true);
      } finally {
        later.cancel();
      }
      const asked = recorder
        .calls()
        .slice(from)
        .map((call) => call.method);
      expect(asked).not.toContain('eth_getTransactionReceipt');
    } finally {
      keeper.cancel();
    }
  });

  it('looks at once when asked, rather than after a pause timed by slow blocks', async () => {
    const keeper = watcher.watch(network, [`0x${'ef'.repeat(32)}`]); // keeps the scan running
    try {
      // Blocks a second apart: the scan pauses about 0.8 s after each before looking again.
      let last = '';
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        last = await pending();
        const seen = watcher.watch(network, [last]);
        await direct.send('evm_mine', []);
        expect(await seen.wait(2_000)).toBe(true);
        seen.cancel();
      }
      // Just after the scan read that block: mined on demand, as automine does.
      const hash = await pending();
      const watch = watcher.watch(network, [hash]);
      try {
        await direct.send('evm_mine', []);
        const asked = Date.now();
        watcher.lookSoon(network);
        expect(await watch.wait(2_000)).toBe(true);
        expect(Date.now() - asked).toBeLessThan(300);
      } finally {
        watch.cancel();
      }
    } finally {
      keeper.cancel();
    }
  });

  it('tells a waiter when the head reaches a height, at once if it is there already', async () => {
    const head = await direct.getBlockNumber();
    expect(await watcher.untilHeight(network, head, 5_000)).toBe(true);
    const started = Date.now();
    expect(await watcher.untilHeight(network, head + 2, 300)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const reached = watcher.untilHeight(network, head + 2, 5_000);
    await direct.send('evm_mine', []);
    await direct.send('evm_mine', []);
    expect(await reached).toBe(true);
  });

  it('stops asking the chain when nobody waits', async () => {
    const watch = watcher.watch(network, [await pending()]);
    await watch.wait(100);
    watch.cancel();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = recorder.calls().length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(recorder.calls().length).toBe(before);
    await direct.send('evm_mine', []); // clear the mempool for the next test
  });
});
