import { JsonRpcProvider, Wallet, parseEther, toBeHex, type HDNodeWallet } from 'ethers';
import { startAnvil, type AnvilHandle } from '@app/localnet/anvil';
import { isAlive, spawnTs, waitForOutput, waitUntilDead } from './process-fixtures';

jest.setTimeout(60_000);

// Runtime `PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN`, behind a constructor that returns it.
const RUNTIME = '602a60005260206000f3';
const INIT_CODE = `0x600a600c600039600a6000f3${RUNTIME}`;

describe('anvil from node_modules, driven by ethers v6', () => {
  let anvil: AnvilHandle;
  let provider: JsonRpcProvider;
  let wallet: HDNodeWallet;

  beforeAll(async () => {
    anvil = await startAnvil({ port: 0 });
    provider = new JsonRpcProvider(anvil.url, undefined, { cacheTimeout: -1, pollingInterval: 50 });
    wallet = Wallet.createRandom(provider);
    await provider.send('anvil_setBalance', [wallet.address, toBeHex(parseEther('1000'))]);
  });

  afterAll(async () => {
    provider.destroy();
    await anvil.stop();
  });

  it('is chain 31337 and funds accounts with anvil_setBalance', async () => {
    expect((await provider.getNetwork()).chainId).toBe(31337n);
    expect(await provider.getBalance(wallet.address)).toBe(parseEther('1000'));
  });

  it('deploys a contract and calls it', async () => {
    const deployment = await wallet.sendTransaction({ data: INIT_CODE });
    const receipt = await deployment.wait();
    const address = receipt!.contractAddress!;
    expect(await provider.getCode(address)).toBe(`0x${RUNTIME}`);
    expect(BigInt(await provider.call({ to: address, data: '0x' }))).toBe(42n);
  });

  it('mines 100 pipelined transfers sent with explicit nonces, without waiting in between', async () => {
    const recipient = Wallet.createRandom().address;
    const first = await provider.getTransactionCount(wallet.address, 'pending');
    const fees = await provider.getFeeData();
    const signed = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        wallet.signTransaction({
          type: 2,
          chainId: 31337,
          to: recipient,
          value: 1_000n + BigInt(i),
          nonce: first + i,
          gasLimit: 21_000,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        }),
      ),
    );
    // In nonce order, each send waiting for the node's answer but not for a receipt: under
    // automine, anvil can leave a wallet's transactions that arrive out of nonce order pending
    // for good (foundry-rs/foundry#10122; sent all at once, this timed out in a CI run).
    const sent = [];
    for (const tx of signed) sent.push(await provider.broadcastTransaction(tx));
    const receipts = await Promise.all(sent.map((tx) => tx.wait()));
    expect(receipts.every((r) => r?.status === 1)).toBe(true);
    expect(await provider.getTransactionCount(wallet.address, 'latest')).toBe(first + 100);
    expect(await provider.getBalance(recipient)).toBe(100n * 1_000n + (99n * 100n) / 2n);
  });

  it('stops its process', async () => {
    const other = await startAnvil({ port: 0 });
    expect(isAlive(other.pid)).toBe(true);
    await other.stop();
    expect(isAlive(other.pid)).toBe(false);
  });

  it('does not outlive a parent killed with SIGKILL', async () => {
    const holder = spawnTs('test/integration/localnet/fixtures/anvil-holder.ts');
    const line = await waitForOutput(holder, /^\d+ http/m);
    const anvilPid = Number(line.split(' ')[0]);
    expect(isAlive(anvilPid)).toBe(true);
    holder.kill('SIGKILL');
    expect(await waitUntilDead(anvilPid)).toBe(true);
  });
});
