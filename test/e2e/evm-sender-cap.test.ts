import { ZeroAddress, type JsonRpcProvider } from 'ethers';
import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { createBaseCollection, mintAsync } from '@test/support/nft-requests';
import { waitForSettledRow } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

const CAP = 8;
const MINTS = 60;
/**
 * From the first block on: 60 mints at 8 a block take 8 one-second blocks, each confirmed a
 * moment later (12-22 s here, on a machine busy with other suites). Sent again only by each
 * transaction's re-send timer (REBROADCAST_AFTER_MS, 15 s) and the nonce-gap closer, the held
 * ones took 39 s, the wallet standing still for 5-7 blocks at a time.
 */
const WITHIN_MS = 30_000;

interface MintRow {
  status: string;
  nonce: string;
  tx_hash: string;
  result: { tokenId?: string } | null;
}

/**
 * A node that caps how many pending transactions one sender may have (the realistic chain's
 * evmSenderPendingCap; the node answers as geth: "account limit exceeded"). A wallet with more
 * writes than that in flight is refused its later nonces until earlier ones are mined: those
 * operations are neither failed nor re-priced nor filled, their stored bytes are sent again
 * after each block, lowest nonce first, and every write lands once, without the wallet stalling.
 */
describe('EVM node capping pending transactions per sender', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;
  let wallet: string;
  let collection: string;

  beforeAll(async () => {
    // The service's own timers as shipped (15 s re-send, 30 s re-pricing): what must not stall.
    stack = await startServiceStack({
      chains: { evmBlockTimeSeconds: 1, evmSenderPendingCap: CAP },
    });
    provider = evmReader(stack.chains.evmRpcUrl);
    const client = await newAccountClient(stack.http);
    api = client.api;
    wallet = client.account.wallets.find((w) => w.network === 'evm')!.public_key;
    collection = await createBaseCollection(api, 'Capped', 'a node capping one sender');
  });

  afterAll(async () => {
    await provider?.send('evm_setIntervalMining', [1]).catch(() => undefined);
    provider?.destroy();
    await stack?.stop();
  });

  const statuses = async (ids: string[]): Promise<Record<string, number>> => {
    const rows = await queryDatabase<{ status: string; count: string }>(
      stack.services.databaseUrl,
      'SELECT status, count(*) AS count FROM operations WHERE id = ANY($1) GROUP BY status',
      [ids],
    );
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
  };

  it(`confirms ${MINTS} mints of one wallet once each, ${CAP} pending at a time`, async () => {
    const contract = collectionAt(provider, collection);
    const mintedBefore = Number(await contract.totalMinted());
    const nonceBefore = await provider.getTransactionCount(wallet, 'latest');

    // No block while the writes arrive: all are signed, the node takes 8, refuses the rest.
    await provider.send('evm_setIntervalMining', [0]);
    const ids = await Promise.all(
      Array.from({ length: MINTS }, (_, i) => mintAsync(api, collection, `Capped ${i}`)),
    );
    const deadline = Date.now() + 30_000;
    for (;;) {
      const now = await statuses(ids);
      if ((now.signed ?? 0) + (now.submitted ?? 0) === MINTS) break;
      if (Date.now() > deadline) throw new Error(`not all signed: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Held, not failed: what the node refused stays signed, its bytes stored.
    expect(await statuses(ids)).toEqual({ submitted: CAP, signed: MINTS - CAP });
    const firstBlock = (await provider.getBlockNumber()) + 1;

    const started = Date.now();
    await provider.send('evm_setIntervalMining', [1]);
    const rows = await Promise.all(
      ids.map((id) =>
        waitForSettledRow<MintRow>(stack.services.databaseUrl, id, WITHIN_MS + 30_000),
      ),
    );
    const elapsed = Date.now() - started;

    // None failed, none re-priced (one version each), on consecutive nonces, without a stall.
    expect(rows.filter((row) => row.status !== 'confirmed')).toEqual([]);
    expect(elapsed).toBeLessThan(WITHIN_MS);
    const nonces = rows.map((row) => Number(row.nonce)).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: MINTS }, (_, i) => nonceBefore + i));
    const [versions] = await queryDatabase<{ versions: string }>(
      stack.services.databaseUrl,
      'SELECT count(*) AS versions FROM operation_transactions WHERE operation_id = ANY($1)',
      [ids],
    );
    expect(Number(versions.versions)).toBe(MINTS);

    // On chain: exactly 60 more tokens, each minted once and owned, the wallet's nonce moved by
    // exactly 60 (no filler, no duplicate), and never more than the cap of them in one block.
    expect(Number(await contract.totalMinted())).toBe(mintedBefore + MINTS);
    const tokenIds = rows.map((row) => Number(row.result?.tokenId)).sort((a, b) => a - b);
    expect(tokenIds).toEqual(Array.from({ length: MINTS }, (_, i) => mintedBefore + 1 + i));
    const owners = await Promise.all(
      tokenIds.map((tokenId) => contract.ownerOf(tokenId) as Promise<string>),
    );
    expect(owners.filter((owner) => owner === ZeroAddress)).toEqual([]);
    expect(await provider.getTransactionCount(wallet, 'latest')).toBe(nonceBefore + MINTS);
    const blocks = await Promise.all(
      rows.map(async (row) => (await provider.getTransactionReceipt(row.tx_hash))!.blockNumber),
    );
    const perBlock = new Map<number, number>();
    for (const block of blocks) perBlock.set(block, (perBlock.get(block) ?? 0) + 1);
    expect(Math.min(...blocks)).toBe(firstBlock);
    expect(Math.max(...perBlock.values())).toBeLessThanOrEqual(CAP);

    const output = stack.workers[0].output();
    expect(output).not.toContain('Node refused the transaction');
    expect(output).not.toContain('re-priced');
  });
});
