import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, parseEther, toBeHex, Wallet } from 'ethers';
import { startLocalChains } from '@app/localnet';
import { childPids, isAlive, spawnTs, waitForOutput, waitUntilDead } from './process-fixtures';
import { rpcCall } from './solana-fixtures';

jest.setTimeout(60_000);

describe('startLocalChains and the localnet CLI', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'localnet-chains-'));

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts both chains on free ports and keeps their state in the data directory', async () => {
    const address = Wallet.createRandom().address;
    const solanaOwner = 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS';
    const first = await startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0, dataDir });
    let provider = new JsonRpcProvider(first.evmRpcUrl, undefined, {
      cacheTimeout: -1,
      staticNetwork: true,
    });
    await provider.send('anvil_setBalance', [address, toBeHex(parseEther('5'))]);
    provider.destroy();
    expect(
      (await rpcCall(first.solanaRpcUrl, 'requestAirdrop', [solanaOwner, 2_000_000])).result,
    ).toBeDefined();
    expect(first.solanaWsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    await first.stop();

    const second = await startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0, dataDir });
    try {
      provider = new JsonRpcProvider(second.evmRpcUrl, undefined, {
        cacheTimeout: -1,
        staticNetwork: true,
      });
      expect(await provider.getBalance(address)).toBe(parseEther('5'));
      provider.destroy();
      expect(await rpcCall(second.solanaRpcUrl, 'getBalance', [solanaOwner])).toMatchObject({
        result: { value: 2_000_000 },
      });
    } finally {
      await second.stop();
    }
  });

  it('mines on arrival, no empty blocks while idle, and holds what a caller keeps in the pool', async () => {
    const chains = await startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0 });
    const provider = new JsonRpcProvider(chains.evmRpcUrl, undefined, {
      cacheTimeout: -1,
      staticNetwork: true,
    });
    try {
      const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
      await provider.send('anvil_setBalance', [wallet.address, toBeHex(parseEther('1'))]);
      const send = () =>
        wallet.sendTransaction({ to: wallet.address, value: 0n, gasLimit: 21_000n });
      const sentAt = Date.now();
      expect((await (await send()).wait())?.status).toBe(1);
      expect(Date.now() - sentAt).toBeLessThan(900); // on arrival, not on the interval

      // anvil's cost per block grows with the chain's length: an idle chain must not grow.
      const idleFrom = await provider.getBlockNumber();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await provider.getBlockNumber()).toBe(idleFrom);

      // A caller that turned automine off keeps its transactions in the pool (tests of dropped
      // and stuck transactions rely on it): the sweeper mines nothing then.
      await provider.send('evm_setAutomine', [false]);
      const held = await send();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await provider.getTransactionReceipt(held.hash)).toBeNull();
      await provider.send('evm_setAutomine', [true]);
      await provider.send('evm_mine', []);
      expect((await held.wait(1, 5_000))?.status).toBe(1);
    } finally {
      provider.destroy();
      await chains.stop();
    }
  });

  it('runs as a CLI that prints its URLs and stops cleanly on SIGTERM', async () => {
    const cli = spawnTs('apps/localnet/src/main.ts', {
      EVM_PORT: '0',
      SOLANA_RPC_PORT: '0',
      SOLANA_WS_PORT: '0',
      SLOT_MS: '50',
      LOCALNET_DATA_DIR: join(dataDir, 'cli'),
    });
    const output = await waitForOutput(cli, /SOLANA_WS_URL=\S+/);
    const solanaUrl = /SOLANA_RPC_URL=(\S+)/.exec(output)![1];
    const evmUrl = /EVM_RPC_URL=(\S+)/.exec(output)![1];
    expect((await rpcCall(solanaUrl, 'getHealth')).result).toBe('ok');
    expect((await rpcCall(evmUrl, 'eth_chainId')).result).toBe('0x7a69');

    const children = await childPids(cli.pid!);
    expect(children.length).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) =>
      cli.once('exit', (code) => resolve(code)),
    );
    cli.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of children) expect(await waitUntilDead(pid)).toBe(true);
    expect(children.some(isAlive)).toBe(false);
  });
});
