import { Contract, Transaction, Wallet, parseUnits, type JsonRpcProvider } from 'ethers';
import { assetTokenArtifact } from '@app/chains';
import { evmReader, queryDatabase } from '@test/support/chain-reads';
import { expectConfirmedEnvelope, settledOperation } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { waitForStatus } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

type PendingRow = { status: string; tx_hash: string; nonce: string; signed_tx: string };

const GWEI = 10n ** 9n;
const TX_HASH = /^0x[0-9a-f]{64}$/;
/** How long the service reuses fee data (EvmAdapter), and a little more. */
const FEE_CACHE_MS = 2_100;
const NETWORKS = ['base', 'bsc'] as const;
type Network = (typeof NETWORKS)[number];

/** What a signed transaction offers per gas: its max fee (EIP-1559) or its gas price. */
function offerOf(signedTx: string): bigint {
  const tx = Transaction.from(signedTx);
  return tx.maxFeePerGas ?? tx.gasPrice!;
}
const SPIKE_BASE_FEE = 100n * GWEI;

/**
 * A congested EVM network on anvil: blocks every second, a base fee that jumps far above what
 * the wallet's pending transactions offer, and a node that drops a transaction from its pool.
 * The service re-prices stuck transactions (same nonce, every version stored before it is sent,
 * the mined one adopted) and re-sends dropped ones: each write lands exactly once, long before
 * the base fee would have decayed back to what the first versions offered.
 */
describe('EVM on a congested network', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;
  let wallet: string;
  /** A token on an EIP-1559 network and one on a legacy (gas price) network, one anvil. */
  const tokens: Record<Network, string> = { base: '', bsc: '' };

  beforeAll(async () => {
    stack = await startServiceStack({
      env: { EVM_REPLACE_AFTER_MS: '1500', REBROADCAST_AFTER_MS: '1000' },
    });
    provider = evmReader(stack.chains.evmRpcUrl);
    // This suite drives the chain's mining itself: automine only, no safety interval.
    await provider.send('evm_setIntervalMining', [0]);
    await provider.send('evm_setAutomine', [true]);
    const client = await newAccountClient(stack.http);
    api = client.api;
    wallet = client.account.wallets.find((w) => w.network === 'evm')!.public_key;
    for (const network of NETWORKS) {
      const created = await api.post('/tokens', {
        network,
        name: 'Congested',
        symbol: 'CGT',
        amount: 1000,
      });
      tokens[network] = expectConfirmedEnvelope(created, network, TX_HASH).mint_address;
    }
  });

  afterEach(async () => {
    await provider.send('evm_setIntervalMining', [0]);
    await provider.send('evm_setAutomine', [true]);
  });

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  const balanceOf = (network: Network, address: string): Promise<bigint> =>
    new Contract(tokens[network], assetTokenArtifact.abi, provider).getFunction('balanceOf')(
      address,
    );

  /** Async mints to fresh recipients, each left pending in the node's pool (mining is off). */
  async function pendingMints(
    network: Network,
    count: number,
  ): Promise<{ id: string; recipient: string }[]> {
    await provider.send('evm_setAutomine', [false]);
    const mints = await Promise.all(
      Array.from({ length: count }, async () => {
        const recipient = Wallet.createRandom().address;
        const response = await api.post(
          `/tokens/${tokens[network]}/mint`,
          { amount: 1, recipient },
          { prefer: 'respond-async' },
        );
        expect(response.status).toBe(202);
        return { id: response.body.data.operation_id as string, recipient };
      }),
    );
    for (const mint of mints) await waitForStatus(stack.services.databaseUrl, mint.id, 'submitted');
    return mints;
  }

  const row = async (id: string) =>
    (
      await queryDatabase<PendingRow>(
        stack.services.databaseUrl,
        `SELECT o.status, o.tx_hash, o.nonce, transaction_wire_text(t.chain_key, t.signed_tx) AS signed_tx FROM operations o
         JOIN transactions t ON t.chain_key = o.chain_key AND t.tx_hash = o.tx_hash
         WHERE o.id = $1`,
        [id],
      )
    )[0];

  const versions = (id: string) =>
    queryDatabase<{ tx_hash: string; nonce: string; signed_tx: string }>(
      stack.services.databaseUrl,
      `SELECT tx_hash, nonce, transaction_wire_text(chain_key, signed_tx) AS signed_tx FROM operation_transactions JOIN transactions USING (chain_key, tx_hash)
       WHERE operation_id = $1 ORDER BY created_at`,
      [id],
    );

  /** A calm market: an earlier spike may not have decayed, nor the service's fee data of it. */
  async function calmMarket(): Promise<void> {
    await provider.send('anvil_setNextBlockBaseFeePerGas', ['0x' + GWEI.toString(16)]);
    await provider.send('evm_mine', []);
    await sleep(FEE_CACHE_MS);
  }

  async function expectLedgerGapFree(): Promise<void> {
    const [ledger] = await queryDatabase<{ next_nonce: string }>(
      stack.services.databaseUrl,
      'SELECT next_nonce FROM nonce_ledger WHERE address = $1',
      [wallet],
    );
    expect(BigInt(ledger.next_nonce)).toBe(BigInt(await provider.getTransactionCount(wallet)));
    expect(await provider.getTransactionCount(wallet, 'pending')).toBe(
      await provider.getTransactionCount(wallet, 'latest'),
    );
  }

  it.each([
    ['EIP-1559 fees', 'base', 2],
    ['a legacy gas price', 'bsc', 0],
  ] as const)(
    'replaces transactions outbid by a base-fee spike (%s), and adopts the mined version',
    async (_, network, type) => {
      await calmMarket();
      const nonceBefore = await provider.getTransactionCount(wallet, 'latest');
      const mints = await pendingMints(network, 3);
      const first = await Promise.all(mints.map((mint) => row(mint.id)));
      const firstOffers = first.map((op) => offerOf(op.signed_tx));
      expect(Math.max(...firstOffers.map(Number))).toBeLessThan(Number(SPIKE_BASE_FEE));

      await provider.send('anvil_setNextBlockBaseFeePerGas', ['0x' + SPIKE_BASE_FEE.toString(16)]);
      await provider.send('evm_setIntervalMining', [1]);
      const started = Date.now();

      for (const [index, mint] of mints.entries()) {
        const settled = await settledOperation(api, mint.id, 60_000);
        expect(settled).toMatchObject({ status: 'confirmed' });
        const original = first[index].tx_hash;
        // The mined version is a replacement, and it is what the operation reports.
        expect(settled.tx).not.toBe(original);
        expect(await provider.getTransactionReceipt(original)).toBeNull();
        const receipt = (await provider.getTransactionReceipt(settled.tx))!;
        expect(receipt.status).toBe(1);
        // It landed in a block the first version could not enter: its base fee was above what
        // the first version offered. The spike had not decayed.
        const block = (await provider.getBlock(receipt.blockNumber))!;
        expect(block.baseFeePerGas!).toBeGreaterThan(firstOffers[index]);

        // Every version was stored, all with the operation's one nonce.
        const stored = await versions(mint.id);
        expect(stored.length).toBeGreaterThanOrEqual(2);
        expect(stored[0].tx_hash).toBe(original);
        expect(stored.map((version) => version.tx_hash)).toContain(settled.tx);
        expect(new Set(stored.map((version) => version.nonce))).toEqual(
          new Set([first[index].nonce]),
        );
        // Each version re-priced in its network's fee model, each offering more than the last.
        const offers = stored.map((version) => Transaction.from(version.signed_tx));
        expect(offers.every((tx) => tx.type === type)).toBe(true);
        for (let v = 1; v < stored.length; v++) {
          expect(offerOf(stored[v].signed_tx)).toBeGreaterThan(offerOf(stored[v - 1].signed_tx));
        }
        expect(await balanceOf(network, mint.recipient)).toBe(parseUnits('1', 18));
      }
      // Decaying 12.5% a block from the spike to what the first versions offered takes far longer.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(await provider.getTransactionCount(wallet, 'latest')).toBe(nonceBefore + 3);
      await expectLedgerGapFree();
    },
  );

  it('re-sends a transaction the node dropped from its pool', async () => {
    await calmMarket();
    const nonceBefore = await provider.getTransactionCount(wallet, 'latest');
    const [mint] = await pendingMints('base', 1);
    const pending = await row(mint.id);
    await provider.send('anvil_dropTransaction', [pending.tx_hash]);
    expect(await provider.getTransaction(pending.tx_hash)).toBeNull();

    await provider.send('evm_setIntervalMining', [1]);
    const settled = await settledOperation(api, mint.id, 60_000);
    expect(settled).toMatchObject({ status: 'confirmed', tx: pending.tx_hash });
    expect((await provider.getTransactionReceipt(pending.tx_hash))?.status).toBe(1);
    expect(await balanceOf('base', mint.recipient)).toBe(parseUnits('1', 18));
    expect(await provider.getTransactionCount(wallet, 'latest')).toBe(nonceBefore + 1);
    await expectLedgerGapFree();
  });

  it('signs in the fee model of each network when networks share a node', async () => {
    // base (EIP-1559) and bsc (legacy gas price) on one anvil, moments apart: fee data of one
    // must not be reused for the other.
    for (const [network, type] of [
      ['base', 2],
      ['bsc', 0],
      ['base', 2],
    ] as const) {
      const response = await api.post(`/tokens/${tokens[network]}/mint`, {
        amount: 1,
        recipient: Wallet.createRandom().address,
      });
      const { tx } = expectConfirmedEnvelope(response, network, TX_HASH);
      expect((await provider.getTransaction(tx))?.type).toBe(type);
    }
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
