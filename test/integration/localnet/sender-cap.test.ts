import { JsonRpcProvider, parseEther, parseUnits, toBeHex, Wallet } from 'ethers';
import {
  ACCOUNT_LIMIT_CODE,
  accountLimitMessage,
  startLocalChains,
  type LocalChains,
} from '@app/localnet';

jest.setTimeout(60_000);

const CAP = 8;
const GWEI = 10n ** 9n;

interface Answer {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/**
 * The realistic chain's cap on one EVM sender's pending transactions (evmSenderPendingCap): a
 * JSON-RPC proxy in front of anvil answers a send past the cap as geth does, and lets everything
 * else through. Interval mining is paused while a test fills the pool, and blocks are mined
 * when it says (evm_mine), so no block moves the cap in the middle of a step.
 */
describe('the per-sender pending cap of the realistic EVM chain', () => {
  let chains: LocalChains;
  let provider: JsonRpcProvider;

  beforeAll(async () => {
    chains = await startLocalChains({
      evmPort: 0,
      solanaPort: 0,
      solanaWsPort: 0,
      evmBlockTimeSeconds: 1,
      evmSenderPendingCap: CAP,
      // Chained behind the latency proxy, as in the realistic preset.
      rpcLatencyMs: 10,
    });
    provider = new JsonRpcProvider(chains.evmRpcUrl, undefined, {
      cacheTimeout: -1,
      staticNetwork: true,
    });
  });

  beforeEach(() => provider.send('evm_setIntervalMining', [0]));

  afterAll(async () => {
    provider?.destroy();
    await chains?.stop();
  });

  async function post(body: unknown): Promise<unknown> {
    const response = await fetch(chains.evmRpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return response.json();
  }

  const send = (raw: string, id: unknown = 1) =>
    post({
      jsonrpc: '2.0',
      id,
      method: 'eth_sendRawTransaction',
      params: [raw],
    }) as Promise<Answer>;

  const sendCall = (raw: string, id: unknown) => ({
    jsonrpc: '2.0',
    id,
    method: 'eth_sendRawTransaction',
    params: [raw],
  });

  async function fundedWallet(): Promise<Wallet> {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    await provider.send('anvil_setBalance', [wallet.address, toBeHex(parseEther('10'))]);
    return wallet;
  }

  /** A self-transfer at `nonce`; `tipGwei` above the first version's makes a replacement. */
  const transfer = (wallet: Wallet, nonce: number, tipGwei = 1n) =>
    wallet.signTransaction({
      type: 2,
      chainId: 31337,
      to: wallet.address,
      value: 0,
      nonce,
      gasLimit: 21_000,
      maxFeePerGas: parseUnits('50', 'gwei') + tipGwei * GWEI,
      maxPriorityFeePerGas: tipGwei * GWEI,
    });

  const pendingOf = async (wallet: Wallet) =>
    (await provider.getTransactionCount(wallet.address, 'pending')) -
    (await provider.getTransactionCount(wallet.address, 'latest'));

  const refusal = (id: unknown): Answer => ({
    jsonrpc: '2.0',
    id,
    error: { code: ACCOUNT_LIMIT_CODE, message: accountLimitMessage(CAP) },
  });

  it("answers a sender's new nonce past the cap as geth, and still takes a replacement", async () => {
    const wallet = await fundedWallet();
    for (let nonce = 0; nonce < CAP; nonce++) {
      expect(await send(await transfer(wallet, nonce))).toMatchObject({
        result: expect.any(String),
      });
    }
    expect(await pendingOf(wallet)).toBe(CAP);

    // The ninth distinct pending nonce: geth's words and code (ErrAccountLimitExceeded).
    expect(await send(await transfer(wallet, CAP), 'ninth')).toEqual(refusal('ninth'));
    expect(accountLimitMessage(CAP)).toBe('account limit exceeded: pooled 8 txs');
    // A nonce further on (a gap) is past the cap too.
    expect(await send(await transfer(wallet, CAP + 5))).toEqual(refusal(1));

    // A fee bump of a pending nonce is a replacement, not a new transaction: taken.
    const bumped = await transfer(wallet, 3, 2n);
    expect(await send(bumped)).toMatchObject({ result: expect.any(String) });
    expect(await pendingOf(wallet)).toBe(CAP);
    // Below the fee bump anvil asks, the replacement is anvil's to refuse, in its own words.
    const same = await send(await transfer(wallet, 4, 1n));
    expect(same.error?.message).toMatch(/already imported|underpriced/);

    // Another sender is not held back by this one.
    const other = await fundedWallet();
    expect(await send(await transfer(other, 0))).toMatchObject({ result: expect.any(String) });

    // A block mines the pool: the sender may send again, up to the cap.
    await provider.send('evm_mine', []);
    expect(await provider.getTransactionCount(wallet.address, 'latest')).toBe(CAP);
    for (let nonce = CAP; nonce < 2 * CAP; nonce++) {
      expect(await send(await transfer(wallet, nonce))).toMatchObject({
        result: expect.any(String),
      });
    }
    expect(await send(await transfer(wallet, 2 * CAP))).toEqual(refusal(1));
  });

  it('answers each call of a batch in order, the refused ones among those passed through', async () => {
    const wallet = await fundedWallet();
    const other = await fundedWallet();
    const first = (await post(
      await Promise.all(
        Array.from({ length: CAP - 1 }, async (_, nonce) =>
          sendCall(await transfer(wallet, nonce), nonce),
        ),
      ),
    )) as Answer[];
    expect(first.map((answer) => answer.id)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(first.every((answer) => typeof answer.result === 'string')).toBe(true);

    // One slot left: the batch's first new nonce takes it, the next is refused; a replacement,
    // another sender, a read and a notification (unanswered) pass as they would.
    const answers = (await post([
      sendCall(await transfer(wallet, CAP - 1), 'a'),
      sendCall(await transfer(wallet, CAP), 'b'),
      sendCall(await transfer(wallet, 2, 3n), 'c'),
      { jsonrpc: '2.0', id: 'd', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] },
      sendCall(await transfer(other, 0), 'e'),
      sendCall(await transfer(wallet, CAP + 1), 'f'),
    ])) as Answer[];
    expect(answers.map((answer) => answer.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(answers[0].result).toEqual(expect.any(String));
    expect(answers[1]).toEqual(refusal('b'));
    expect(answers[2].result).toEqual(expect.any(String));
    expect(answers[3]).toEqual({ jsonrpc: '2.0', id: 'd', result: '0x7a69' });
    expect(answers[4].result).toEqual(expect.any(String));
    expect(answers[5]).toEqual(refusal('f'));
    expect(await pendingOf(wallet)).toBe(CAP);

    // A batch refused whole is answered without anvil; what anvil cannot decode is its to answer.
    expect(await post([sendCall(await transfer(wallet, CAP), 1), sendCall('0x1234', 2)])).toEqual([
      refusal(1),
      { jsonrpc: '2.0', id: 2, error: expect.any(Object) },
    ]);
  });

  it('lets the sender send again once interval mining mines its pool', async () => {
    const wallet = await fundedWallet();
    for (let nonce = 0; nonce < CAP; nonce++) await send(await transfer(wallet, nonce));
    expect(await send(await transfer(wallet, CAP))).toEqual(refusal(1));

    await provider.send('evm_setIntervalMining', [1]);
    const deadline = Date.now() + 5_000;
    while ((await provider.getTransactionCount(wallet.address, 'latest')) < CAP) {
      if (Date.now() > deadline) throw new Error('no block mined the pool');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await send(await transfer(wallet, CAP))).toMatchObject({ result: expect.any(String) });
    // ethers sees the refusal as the node's error, in geth's words.
    await expect(
      provider.broadcastTransaction(await transfer(wallet, 2 * CAP + 1)),
    ).rejects.toThrow(/account limit exceeded/);
  });
});
