import type { JsonRpcProvider } from 'ethers';
import { collectionAt, evmReader } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { createBaseCollection, mintAsync } from '@test/support/nft-requests';
import { operationRow, waitForStatus } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

/** Blocks, its own included, that must hold a `base` transaction before its operation settles. */
const CONFIRMATIONS = 3;

interface MintRow {
  status: string;
  tx_hash: string | null;
  nonce: string | null;
}

/**
 * Reorgs on anvil (`anvil_reorg` replaces the newest blocks with empty ones, and the
 * transactions in them are gone from the node, as on a node that does not put them back in its
 * pool). With EVM_CONFIRMATIONS=3 an operation settles only on a receipt three blocks deep,
 * read again at that depth: a mint whose block is taken away is sent again and lands once.
 */
describe('EVM reorgs and confirmations', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;
  let wallet: string;
  let collection: string;
  let db: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      env: { EVM_CONFIRMATIONS_BASE: String(CONFIRMATIONS) },
    });
    db = stack.services.databaseUrl;
    provider = evmReader(stack.chains.evmRpcUrl);
    // Blocks every second while the collection is made (it waits for its confirmations too).
    await provider.send('evm_setIntervalMining', [1]);
    const client = await newAccountClient(stack.http);
    api = client.api;
    wallet = client.account.wallets.find((w) => w.network === 'evm')!.public_key;
    collection = await createBaseCollection(api, 'Reorgs', 'blocks taken away');
    // From here the test makes every block itself.
    await provider.send('evm_setIntervalMining', [0]);
    await provider.send('evm_setAutomine', [true]);
  });

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  const blockOf = async (hash: string): Promise<number | null> =>
    (await provider.getTransactionReceipt(hash))?.blockNumber ?? null;

  /** The operation's transaction, once sent and mined (automine: at once). */
  const minedMint = async (id: string): Promise<{ hash: string; block: number }> => {
    const { tx_hash: hash } = await waitForStatus(db, id, 'submitted', 20_000);
    for (let tries = 0; tries < 100; tries++) {
      const block = await blockOf(hash!);
      if (block !== null) return { hash: hash!, block };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${hash} not mined`);
  };

  it('settles a mint only once its block is three deep', async () => {
    const id = await mintAsync(api, collection, 'three deep');
    const { hash, block } = await minedMint(id);
    await provider.send('evm_mine', []);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Two blocks hold it: not yet.
    expect((await operationRow<MintRow>(db, id)).status).toBe('submitted');
    await provider.send('evm_mine', []);
    const confirmed = await waitForStatus(db, id, 'confirmed', 10_000);
    expect(confirmed.tx_hash).toBe(hash);
    expect(await provider.getBlockNumber()).toBe(block + CONFIRMATIONS - 1);
  });

  it('sends a mint again when a reorg takes its block away, and settles it once', async () => {
    const mintedBefore: bigint = await collectionAt(provider, collection).totalMinted();
    const sentBefore = await provider.getTransactionCount(wallet, 'latest');
    const id = await mintAsync(api, collection, 'reorged');
    const { hash, block } = await minedMint(id);
    await provider.send('evm_mine', []);
    // Its block and the one after replaced by empty ones: the mint is gone from the chain.
    await provider.send('anvil_reorg', [2, []]);
    expect(await blockOf(hash)).toBeNull();
    expect(await provider.getTransactionCount(wallet, 'latest')).toBe(sentBefore);

    // The third block would have confirmed the receipt: instead the service finds it gone and
    // sends the same bytes again, mined in this next block (automine), then three deep.
    await provider.send('evm_mine', []);
    let mined: number | null = null;
    for (let tries = 0; mined === null && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      mined = await blockOf(hash);
    }
    expect(mined).toBeGreaterThan(block);
    expect((await operationRow<MintRow>(db, id)).status).toBe('submitted');
    await provider.send('evm_mine', []);
    await provider.send('evm_mine', []);
    const confirmed = await waitForStatus(db, id, 'confirmed', 10_000);
    expect(confirmed.tx_hash).toBe(hash);
    expect(await collectionAt(provider, collection).totalMinted()).toBe(mintedBefore + 1n);
    expect(await provider.getTransactionCount(wallet, 'latest')).toBe(sentBefore + 1);
    expect(stack.workers[0].output()).toContain('Receipt taken away by a reorg');
  });
});
