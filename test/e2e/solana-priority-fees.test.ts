import { Connection, PublicKey } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, getMint } from '@solana/spl-token';
import { landedSolanaTransaction, queryDatabase, solanaWireFacts } from '@test/support/chain-reads';
import { summary } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { operationRow, waitForExit, waitForSettledRow } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { startFeeTraffic, type FeeTraffic } from '@test/support/solana-fee-traffic';

jest.setTimeout(180_000);

/** 50 ms slots: getRecentPrioritizationFees covers 150 slots, 7.5 s. */
const SLOT_MS = 50;
const FEE_WINDOW_MS = 150 * SLOT_MS;
const FAST_RECOVERY = { JOB_LOCK_MS: '1000', RECONCILE_AFTER_MS: '1500' };
/** What the other users writing the managed wallet pay, then pay more. */
const BUSY = 20_000;
const BUSIER = 60_000;

interface OperationRow {
  status: string;
  tx_hash: string | null;
  signed_tx: string | null;
  last_valid_block_height: string | null;
}

/**
 * The compute-unit price follows the network: the 75th percentile (SOLANA_PRIORITY_FEE_PERCENTILE)
 * of the recent per-slot fees for the accounts the transaction writes, at least the floor
 * (SOLANA_PRIORITY_FEE_MICROLAMPORTS), at most the cap (SOLANA_PRIORITY_FEE_MAX_MICROLAMPORTS).
 * The test's own traffic writes the service's managed wallet (every transaction's fee payer) at
 * a price, slot after slot; other traffic at price 0 fills the same slots, so only a lookup for
 * the transaction's own accounts sees the price.
 */
describe('Solana priority fees that follow the network', () => {
  let stack: ServiceStack;
  let connection: Connection;
  let api: HttpClient;
  let token: string;
  let contention: FeeTraffic;
  let idle: FeeTraffic;

  beforeAll(async () => {
    stack = await startServiceStack({ env: FAST_RECOVERY, chains: { slotMs: SLOT_MS } });
    connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
    const client = await newAccountClient(stack.http);
    api = client.api;
    const wallet = client.account.wallets.find((w) => w.network === 'solana')!.public_key;
    const created = await api.post('/tokens', {
      network: 'solana',
      name: 'Fees',
      symbol: 'FEE',
      amount: 1_000,
      decimals: 0,
    });
    expect(summary(created)).toMatchObject({ status: 200 });
    token = created.body.data.mint_address;
    [contention, idle] = await Promise.all([
      startFeeTraffic(connection, BUSY, new PublicKey(wallet)),
      startFeeTraffic(connection, 0),
    ]);
    // Until every slot of the window the node reports has seen the traffic.
    await sleep(FEE_WINDOW_MS + 1_000);
  });

  afterAll(async () => {
    await Promise.all([contention?.stop(), idle?.stop()]);
    await stack?.stop();
  });

  /** A token mint of 1, answered once confirmed: the price its landed transaction paid. */
  async function landedPrice(): Promise<number | null> {
    const response = await api.post(`/tokens/${token}/mint`, { amount: 1 });
    expect(summary(response)).toMatchObject({
      status: 200,
      body: { data: { status: 'confirmed' } },
    });
    const landed = await landedSolanaTransaction(connection, response.body.data.tx);
    expect(landed.memos).toEqual([`ais:${response.body.data.operation_id}`]);
    return landed.computeUnitPrice;
  }

  const restartWorker = async (env: Record<string, string> = {}) => {
    await stack.stopWorkers();
    return stack.startWorker(env);
  };

  it("pays the percentile of what writing its accounts took, not the slots' lowest", async () => {
    expect(await landedPrice()).toBe(BUSY);
  });

  it('pays no more than the cap', async () => {
    await restartWorker({ SOLANA_PRIORITY_FEE_MAX_MICROLAMPORTS: '7000' });
    expect(await landedPrice()).toBe(7_000);
  });

  it('pays at least the floor', async () => {
    await restartWorker({ SOLANA_PRIORITY_FEE_MICROLAMPORTS: '50000' });
    expect(await landedPrice()).toBe(50_000);
  });

  it('prices a re-signing after blockhash expiry anew, from the fees of its own time', async () => {
    const supply = async () =>
      (await getMint(connection, new PublicKey(token), 'confirmed', TOKEN_2022_PROGRAM_ID)).supply;
    const before = await supply();
    // Signed, stored, never sent: the worker dies right after signing.
    const crashing = await restartWorker({ FAULT_INJECTION: 'crash-after-sign' });
    const response = await api.post(
      `/tokens/${token}/mint`,
      { amount: 1 },
      { prefer: 'respond-async' },
    );
    expect(summary(response)).toMatchObject({ status: 202 });
    const id = response.body.data.operation_id as string;
    await waitForExit(crashing);
    const first = await operationRow<OperationRow>(stack.services.databaseUrl, id);
    expect(first.status).toBe('signed');
    expect(solanaWireFacts(first.signed_tx!).computeUnitPrice).toBe(BUSY);

    // The network gets busier while the signed transaction's blockhash runs out.
    contention.setPrice(BUSIER);
    while (
      (await connection.getBlockHeight('confirmed')) <= Number(first.last_valid_block_height)
    ) {
      await sleep(50);
    }

    await stack.startWorker();
    const settled = await waitForSettledRow<OperationRow>(stack.services.databaseUrl, id);
    expect(settled.status).toBe('confirmed');
    expect(settled.tx_hash).not.toBe(first.tx_hash);
    const landed = await landedSolanaTransaction(connection, settled.tx_hash!);
    expect(landed.computeUnitPrice).toBe(BUSIER);
    expect(landed.memos).toEqual([`ais:${id}`]);
    expect(await supply()).toBe(before + 1n);

    // Both signings are kept, each with the price it paid.
    const signings = await queryDatabase<{ tx_hash: string; fees: Record<string, string> }>(
      stack.services.databaseUrl,
      `SELECT tx_hash, fees FROM operation_transactions JOIN transactions USING (chain_key, tx_hash)
       WHERE operation_id = $1
       ORDER BY created_at`,
      [id],
    );
    expect(signings.map((signing) => signing.tx_hash)).toEqual([first.tx_hash, settled.tx_hash]);
    expect(signings.map((signing) => signing.fees.computeUnitPriceMicroLamports)).toEqual([
      String(BUSY),
      String(BUSIER),
    ]);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
