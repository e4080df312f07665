import { Connection, PublicKey, SendTransactionError, VersionedTransaction } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, getMint, getTokenGroupState } from '@solana/spl-token';
import { queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { operationRow, waitForExit, waitForSettledRow } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

/** 10 ms slots: a blockhash is valid for 150 blocks, 1.5 s. */
const SLOT_MS = 10;
const FAST_RECOVERY = { JOB_LOCK_MS: '1000', RECONCILE_AFTER_MS: '1500' };
const IMAGE = 'https://example.com/x.png';

interface OperationRow {
  status: string;
  tx_hash: string | null;
  signed_tx: string | null;
  last_valid_block_height: string | null;
  new_mint_address: string | null;
}

/**
 * Blockhash expiry on a fast slot clock: a transaction signed but never sent (the worker killed
 * after signing) outlives its blockhash. Only then, with its signature provably never landed,
 * is the operation signed anew: a second signature, and still one asset.
 */
describe('Solana blockhash expiry', () => {
  let stack: ServiceStack;
  let connection: Connection;
  let api: HttpClient;
  let session: HttpClient;
  let collection: string;
  let token: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      workers: 1,
      env: FAST_RECOVERY,
      chains: { slotMs: SLOT_MS },
    });
    connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
    ({ api, session } = await newAccountClient(stack.http));
    const [created, tokenCreated] = await Promise.all([
      api.post('/nfts', {
        network: 'solana',
        name: 'Expiry',
        description: 'expiry tests',
        images: [IMAGE],
      }),
      api.post('/tokens', { network: 'solana', name: 'Expiry', symbol: 'EXP', amount: 10 }),
    ]);
    expect([created.status, tokenCreated.status]).toEqual([200, 200]);
    collection = created.body.data.mint_address;
    token = tokenCreated.body.data.mint_address;
    await stack.stopWorkers();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const operation = (id: string) => operationRow<OperationRow>(stack.services.databaseUrl, id);

  const waitForSettled = (id: string) =>
    waitForSettledRow<OperationRow>(stack.services.databaseUrl, id);

  const tokenSupply = async () =>
    (await getMint(connection, new PublicKey(token), 'confirmed', TOKEN_2022_PROGRAM_ID)).supply;

  /** An async mint of the test token; its operation id. */
  const mintTokensAsync = async (amount: number): Promise<string> => {
    const response = await api.post(
      `/tokens/${token}/mint`,
      { amount },
      { prefer: 'respond-async' },
    );
    expect(response.status).toBe(202);
    return response.body.data.operation_id as string;
  };

  const waitPast = async (lastValidBlockHeight: number) => {
    while ((await connection.getBlockHeight('confirmed')) <= lastValidBlockHeight) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const signatureStatus = async (signature: string) =>
    (await connection.getSignatureStatus(signature, { searchTransactionHistory: true })).value;

  /** Signs with a worker that dies right after storing the signed transaction. */
  const signAndCrash = async (request: () => Promise<string>): Promise<[string, OperationRow]> => {
    const crashing = await stack.startWorker({ FAULT_INJECTION: 'crash-after-sign' });
    const id = await request();
    await waitForExit(crashing);
    expect(crashing.process.signalCode).toBe('SIGKILL');
    const signed = await operation(id);
    expect(signed.status).toBe('signed');
    return [id, signed];
  };

  const groupSize = async (): Promise<bigint> =>
    getTokenGroupState(
      await getMint(connection, new PublicKey(collection), 'confirmed', TOKEN_2022_PROGRAM_ID),
    )!.size!;

  it('re-signs an NFT mint whose transaction expired unlanded: new signature, same item mint, one item', async () => {
    const sizeBefore = await groupSize();
    const [id, first] = await signAndCrash(async () => {
      const response = await api.post(
        `/nfts/${collection}/mint`,
        { name: 'Expired once', images: [IMAGE] },
        { prefer: 'respond-async' },
      );
      expect(response.status).toBe(202);
      return response.body.data.operation_id as string;
    });
    const firstTx = VersionedTransaction.deserialize(Buffer.from(first.signed_tx!, 'base64'));
    const itemMint = firstTx.message.staticAccountKeys[1].toBase58();

    await waitPast(Number(first.last_valid_block_height));
    expect(await signatureStatus(first.tx_hash!)).toBeNull();

    await stack.startWorker();
    const settled = await waitForSettled(id);
    expect(settled.status).toBe('confirmed');
    expect(settled.tx_hash).not.toBe(first.tx_hash);
    expect(await signatureStatus(settled.tx_hash!)).toMatchObject({ err: null });
    // The first transaction never landed, and its bytes never can now.
    expect(await signatureStatus(first.tx_hash!)).toBeNull();
    const resend = await connection
      .sendRawTransaction(Buffer.from(first.signed_tx!, 'base64'))
      .catch((error: unknown) => error);
    expect(resend).toBeInstanceOf(SendTransactionError);
    expect((resend as Error).message).toMatch(/Blockhash not found/);

    // Both signings created the same item mint: the keypair was kept with the operation.
    expect(settled.new_mint_address).toBe(itemMint);
    const secondTx = VersionedTransaction.deserialize(Buffer.from(settled.signed_tx!, 'base64'));
    expect(secondTx.message.staticAccountKeys[1].toBase58()).toBe(itemMint);
    expect(secondTx.message.recentBlockhash).not.toBe(firstTx.message.recentBlockhash);
    expect(await groupSize()).toBe(sizeBefore + 1n);
    const items = await queryDatabase(
      stack.services.databaseUrl,
      'SELECT mint_address FROM nft_items WHERE operation_id = $1',
      [id],
    );
    expect(items).toEqual([{ mint_address: itemMint }]);
    await stack.stopWorkers();
  });

  it('re-signs a token mint whose transaction expired unlanded: the supply grows once', async () => {
    const supplyBefore = await tokenSupply();
    const [id, first] = await signAndCrash(() => mintTokensAsync(3));
    await waitPast(Number(first.last_valid_block_height));

    await stack.startWorker();
    const settled = await waitForSettled(id);
    expect(settled.status).toBe('confirmed');
    expect(settled.tx_hash).not.toBe(first.tx_hash);
    expect(await signatureStatus(first.tx_hash!)).toBeNull();
    expect(await tokenSupply()).toBe(supplyBefore + 3_000_000_000n);
    await stack.stopWorkers();
  });

  /** The day's spend on Solana (lamports) of the account of operation `id`, as the cap counts it. */
  const spentToday = async (id: string): Promise<bigint> => {
    const rows = await queryDatabase<{ spent: string }>(
      stack.services.databaseUrl,
      `SELECT spent FROM native_spend
       WHERE account_id = (SELECT account_id FROM operations WHERE id = $1)
         AND network = 'solana' AND day = (now() AT TIME ZONE 'utc')::date`,
      [id],
    );
    return BigInt(rows[0]?.spent ?? 0);
  };

  const setDailyCap = async (lamports: bigint): Promise<void> => {
    const sol = (Number(lamports) / 1e9).toFixed(9);
    const response = await session.put('/account/policies', { daily_native_cap: { solana: sol } });
    expect(response.status).toBe(200);
  };

  it('counts an operation re-signed after its transaction expired once against the daily cap', async () => {
    await setDailyCap(1_000_000_000n);
    const [id, first] = await signAndCrash(() => mintTokensAsync(2));
    // The account's first signing under a cap: the day's spend is what it can cost.
    const firstSigning = await spentToday(id);
    expect(firstSigning).toBeGreaterThan(0n);
    // Room for the first signing and half of another: counting the second signing in full, as
    // if both could land, would refuse it.
    await setDailyCap(firstSigning + firstSigning / 2n);
    await waitPast(Number(first.last_valid_block_height));

    await stack.startWorker();
    const settled = await waitForSettled(id);
    expect(settled.status).toBe('confirmed');
    expect(settled.tx_hash).not.toBe(first.tx_hash);
    expect(await spentToday(id)).toBeLessThan(firstSigning + firstSigning / 2n);
    await setDailyCap(1_000_000_000n);
    await stack.stopWorkers();
  });

  it('fails, instead of re-signing, an operation past its deadline once its transaction expired unlanded', async () => {
    const supplyBefore = await tokenSupply();
    const [id, first] = await signAndCrash(() => mintTokensAsync(5));
    // As if its runs had been failing for an hour (OPERATION_DEADLINE_MS is 10 minutes).
    const lastError = 'The Solana RPC could not be reached.';
    await queryDatabase(
      stack.services.databaseUrl,
      `UPDATE operations SET attempts = 7, last_error = $2, retrying_since = now() - interval '1 hour'
       WHERE id = $1`,
      [id, lastError],
    );
    // Signed, so not failed yet: its transaction might land until its blockhash expires.
    await waitPast(Number(first.last_valid_block_height));

    await stack.startWorker();
    const settled = await waitForSettled(id);
    expect(settled).toMatchObject({ status: 'failed', tx_hash: null, signed_tx: null });
    const view = await api.get(`/operations/${id}`);
    expect(view.body.data.error).toEqual({
      error: 'Bad gateway',
      message: `retries exhausted: ${lastError}`,
    });
    expect(await signatureStatus(first.tx_hash!)).toBeNull();
    expect(await tokenSupply()).toBe(supplyBefore);
    await stack.stopWorkers();
  });
});
