import {
  Keypair,
  LAMPORTS_PER_SOL,
  SendTransactionError,
  SystemProgram,
  Transaction,
  TransactionExpiredBlockheightExceededError,
  type BlockhashWithExpiryBlockHeight,
  type Connection,
} from '@solana/web3.js';
import { startSolanaRpc, type SolanaRpcHandle } from '@app/localnet';
import {
  connect,
  fundedKeypair,
  letWebSocketIdle,
  rpcCall,
  signFast,
  sleep,
} from './solana-fixtures';

jest.setTimeout(60_000);

const SLOT_MS = 10;

/** Slots on a fast clock: blockhashes age out after 150 blocks, as on a validator. */
describe('Solana RPC clock and blockhash expiry', () => {
  let solana: SolanaRpcHandle;
  let connection: Connection;
  let payer: Keypair;

  beforeAll(async () => {
    solana = await startSolanaRpc({ port: 0, wsPort: 0, slotMs: SLOT_MS });
    connection = connect(solana.rpcUrl, solana.wsUrl);
    payer = await fundedKeypair(connection, 100);
  });

  afterAll(async () => {
    await letWebSocketIdle();
    await solana.stop();
  });

  const transfer = (blockhash: BlockhashWithExpiryBlockHeight, lamports = LAMPORTS_PER_SOL) =>
    signFast(
      new Transaction({ feePayer: payer.publicKey, ...blockhash }).add(
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports,
        }),
      ),
      payer,
    );

  const waitPast = async (lastValidBlockHeight: number) => {
    while ((await connection.getBlockHeight()) <= lastValidBlockHeight) await sleep(100);
  };

  it('advances slots, block height and the clock, with a new blockhash per slot', async () => {
    const first = await connection.getLatestBlockhash();
    const slot = await connection.getSlot();
    await sleep(20 * SLOT_MS);
    const second = await connection.getLatestBlockhash();
    expect(await connection.getSlot()).toBeGreaterThan(slot + 5);
    expect(second.blockhash).not.toBe(first.blockhash);
    expect(second.lastValidBlockHeight).toBeGreaterThan(first.lastValidBlockHeight);
    const height = await connection.getBlockHeight();
    expect(second.lastValidBlockHeight - height).toBeLessThanOrEqual(150);
    expect(await connection.getBlockTime(slot)).toBeGreaterThan(Date.now() / 1000 - 60);
  });

  it('lands transactions that use older, still valid blockhashes', async () => {
    const older = await connection.getLatestBlockhash();
    await sleep(30 * SLOT_MS);
    const newer = await connection.getLatestBlockhash();
    expect(newer.blockhash).not.toBe(older.blockhash);
    const signatures = await Promise.all(
      [older, newer].map((b) => connection.sendRawTransaction(transfer(b))),
    );
    const results = await Promise.all(
      signatures.map((signature, i) =>
        connection.confirmTransaction({ signature, ...[older, newer][i] }),
      ),
    );
    expect(results.map((r) => r.value.err)).toEqual([null, null]);
  });

  it('refuses an expired blockhash at preflight as "Blockhash not found" (-32002)', async () => {
    const stale = await connection.getLatestBlockhash();
    const raw = transfer(stale);
    await waitPast(stale.lastValidBlockHeight);

    expect((await connection.isBlockhashValid(stale.blockhash)).value).toBe(false);
    const error = await connection.sendRawTransaction(raw).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendTransactionError);
    expect((error as Error).message).toContain(
      'Transaction simulation failed: Blockhash not found',
    );

    const reply = await rpcCall(solana.rpcUrl, 'sendTransaction', [
      raw.toString('base64'),
      { encoding: 'base64' },
    ]);
    expect(reply.error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Blockhash not found',
      data: { err: 'BlockhashNotFound', logs: [] },
    });
  });

  it('accepts an expired transaction with skipPreflight but never lands it, and a resend lands', async () => {
    const stale = await connection.getLatestBlockhash();
    const raw = transfer(stale);
    await waitPast(stale.lastValidBlockHeight);

    const signature = await connection.sendRawTransaction(raw, { skipPreflight: true });
    await expect(connection.confirmTransaction({ signature, ...stale })).rejects.toBeInstanceOf(
      TransactionExpiredBlockheightExceededError,
    );
    const status = await connection.getSignatureStatus(signature, {
      searchTransactionHistory: true,
    });
    expect(status.value).toBeNull();

    const fresh = await connection.getLatestBlockhash();
    const resent = await connection.sendRawTransaction(transfer(fresh));
    expect(
      (await connection.confirmTransaction({ signature: resent, ...fresh })).value.err,
    ).toBeNull();
  });

  it('reports an unknown blockhash in simulation, and replaces it when asked', async () => {
    const unknown = { blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 0 };
    const tx = new Transaction({ feePayer: payer.publicKey, ...unknown }).add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: payer.publicKey,
        lamports: 1,
      }),
    );
    const encoded = tx.serialize({ requireAllSignatures: false }).toString('base64');
    const plain = await rpcCall(solana.rpcUrl, 'simulateTransaction', [
      encoded,
      { encoding: 'base64' },
    ]);
    expect(plain.result).toMatchObject({ value: { err: 'BlockhashNotFound' } });
    const replaced = await rpcCall(solana.rpcUrl, 'simulateTransaction', [
      encoded,
      { encoding: 'base64', replaceRecentBlockhash: true },
    ]);
    expect(replaced.result).toMatchObject({
      value: { err: null, replacementBlockhash: { blockhash: expect.any(String) } },
    });
  });
});
