import { Transaction, type JsonRpcProvider } from 'ethers';
import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import type { JsonRpcRecorder } from '@test/support/json-rpc-recorder';
import { createBaseCollection, mintAsync } from '@test/support/nft-requests';
import { operationRow, waitForStatus } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

const GWEI = 10n ** 9n;
const CEILING_GWEI = 50n;
/** Re-pricing by the stuck-transaction timer would take this long: what these tests beat. */
const REPLACE_AFTER_MS = 30_000;

interface SignedRow {
  status: string;
  tx_hash: string;
  signed_tx: string;
  error_code: string | null;
}

/** The fee cap of the operation's current version. */
const offerOf = (row: SignedRow): bigint | null => Transaction.from(row.signed_tx).maxFeePerGas;

/**
 * Nodes that refuse a transaction for its price, not for what it does: one with a minimum tip
 * above the market's estimate (geth's `--txpool.pricelimit`, Polygon's floor; a proxy in front
 * of anvil answers in geth's words), and anvil refusing a fee cap under the block's base fee
 * while the base fee stands above the network's ceiling. Neither refusal fails the operation or
 * strands its nonce: the first is signed again at the node's minimum at once, the second waits
 * for the base fee to come down.
 */
describe('EVM nodes refusing a price', () => {
  let stack: ServiceStack;
  let recorder: JsonRpcRecorder;
  let provider: JsonRpcProvider;
  let api: HttpClient;
  let collection: string;
  let db: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      evmRecorder: true,
      env: {
        EVM_MAX_FEE_GWEI_BASE: String(CEILING_GWEI),
        EVM_REPLACE_AFTER_MS: String(REPLACE_AFTER_MS),
        REBROADCAST_AFTER_MS: '1000',
      },
    });
    recorder = stack.evmRecorder!;
    db = stack.services.databaseUrl;
    provider = evmReader(stack.chains.evmRpcUrl);
    // This suite drives the chain's mining itself: automine only, no safety interval.
    await provider.send('evm_setIntervalMining', [0]);
    await provider.send('evm_setAutomine', [true]);
    ({ api } = await newAccountClient(stack.http));
    collection = await createBaseCollection(api, 'Price floors', 'nodes refusing a price');
  });

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  const versionsOf = async (id: string): Promise<number> => {
    const [row] = await queryDatabase<{ versions: string }>(
      db,
      'SELECT count(*) AS versions FROM operation_transactions WHERE operation_id = $1',
      [id],
    );
    return Number(row.versions);
  };

  /** Polls the operation's row until `check` holds (at most 15 s). */
  const waitForRow = async (id: string, check: (row: SignedRow) => boolean): Promise<SignedRow> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const row = await operationRow<SignedRow>(db, id);
      if (check(row)) return row;
      if (Date.now() > deadline)
        throw new Error(`operation ${id} stands at ${JSON.stringify(row)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it("signs a mint under the node's minimum tip again at that minimum, at once", async () => {
    const marketTip = BigInt(await provider.send('eth_maxPriorityFeePerGas', []));
    const floor = 3n * marketTip + GWEI;
    const mintedBefore: bigint = await collectionAt(provider, collection).totalMinted();
    recorder.refuseTipsBelow(floor);
    try {
      const started = Date.now();
      const first = await mintAsync(api, collection, 'under the floor');
      await waitForStatus(db, first, 'confirmed', 20_000);
      expect(Date.now() - started).toBeLessThan(REPLACE_AFTER_MS / 2);
      expect(recorder.refusedSends()).toBeGreaterThan(0);
      // Its first version was refused, never mined; the second, at the floor, was.
      const row = await operationRow<SignedRow>(db, first);
      expect(Transaction.from(row.signed_tx).maxPriorityFeePerGas).toBeGreaterThanOrEqual(floor);
      expect(await versionsOf(first)).toBe(2);
      expect((await provider.getTransactionReceipt(row.tx_hash))?.status).toBe(1);

      // The worker has learned the node's minimum: the next mint is signed at it from the start.
      const refusedBefore = recorder.refusedSends();
      const second = await mintAsync(api, collection, 'at the floor');
      await waitForStatus(db, second, 'confirmed', 20_000);
      expect(await versionsOf(second)).toBe(1);
      expect(recorder.refusedSends()).toBe(refusedBefore);
      expect(await collectionAt(provider, collection).totalMinted()).toBe(mintedBefore + 2n);
      expect(stack.workers[0].output()).toContain(`takes no tip under ${floor} wei`);
    } finally {
      recorder.refuseTipsBelow(null);
    }
  });

  it('waits for a base fee above the ceiling to come down instead of failing the mint', async () => {
    const mintedBefore: bigint = await collectionAt(provider, collection).totalMinted();
    // No block comes while automine waits for a transaction the node takes: the base fee stays.
    await provider.send('anvil_setNextBlockBaseFeePerGas', [
      `0x${(2n * CEILING_GWEI * GWEI).toString(16)}`,
    ]);
    await provider.send('evm_mine', []);
    try {
      const id = await mintAsync(api, collection, 'over the ceiling');
      // Refused under the base fee, it keeps its nonce and waits, signed again up to the
      // ceiling (each version bumped from the last) and no further.
      const waiting = await waitForRow(id, (row) => offerOf(row) === CEILING_GWEI * GWEI);
      expect(waiting).toMatchObject({ status: 'signed', error_code: null });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await operationRow<SignedRow>(db, id)).toMatchObject({
        status: 'signed',
        tx_hash: waiting.tx_hash,
      });

      // Empty blocks every second: the base fee falls 12.5% a block, under the ceiling in six.
      await provider.send('evm_setAutomine', [false]);
      await provider.send('evm_setIntervalMining', [1]);
      const confirmed = await waitForStatus(db, id, 'confirmed', 30_000);
      const mined = await provider.getTransaction(confirmed.tx_hash!);
      expect(mined!.maxFeePerGas).toBeLessThanOrEqual(CEILING_GWEI * GWEI);
      expect(await collectionAt(provider, collection).totalMinted()).toBe(mintedBefore + 1n);
    } finally {
      await provider.send('evm_setIntervalMining', [0]);
      await provider.send('evm_setAutomine', [true]);
    }
  });
});
