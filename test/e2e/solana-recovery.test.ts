import { Connection, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, getMint, getTokenGroupState } from '@solana/spl-token';
import { queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { operationRow, waitForExit, waitForSettledRow } from '@test/support/operation-polling';
import { waitForLogLine } from '@test/support/log-lines';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

const FAST_RECOVERY = { JOB_LOCK_MS: '1000', RECONCILE_AFTER_MS: '1500' };
const IMAGE = 'https://example.com/x.png';

interface OperationRow {
  status: string;
  tx_hash: string | null;
  signed_tx: string | null;
  last_valid_block_height: string | null;
  new_mint_secret: Buffer | null;
  new_mint_key_id: string | null;
  result: { mintAddress?: string; tokenId?: string } | null;
  new_mint_address: string | null;
  error_code: string | null;
}

/**
 * Solana exactly once, with the worker killed at the worst moments: after signing (the signed
 * bytes stored, nothing sent) and after sending (landed, not yet settled). The restarted worker
 * checks the signature first and re-sends the same bytes or adopts what landed: one asset, the
 * same signature.
 */
describe('Solana recovery', () => {
  let stack: ServiceStack;
  let connection: Connection;
  let api: HttpClient;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({ workers: 1, env: FAST_RECOVERY });
    connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
    api = (await newAccountClient(stack.http)).api;
    const created = await api.post('/nfts', {
      network: 'solana',
      name: 'Recovery',
      description: 'crash tests',
      images: [IMAGE],
    });
    expect(created.status).toBe(200);
    collection = created.body.data.mint_address;
    await stack.stopWorkers();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const operation = (id: string) => operationRow<OperationRow>(stack.services.databaseUrl, id);

  const groupSize = async (mint: string): Promise<bigint> =>
    getTokenGroupState(
      await getMint(connection, new PublicKey(mint), 'confirmed', TOKEN_2022_PROGRAM_ID),
    )!.size!;

  const mintAsync = async (name: string, into = collection): Promise<string> => {
    const response = await api.post(
      `/nfts/${into}/mint`,
      { name, images: [IMAGE] },
      { prefer: 'respond-async' },
    );
    expect(response.status).toBe(202);
    return response.body.data.operation_id as string;
  };

  const waitForSettled = (id: string) =>
    waitForSettledRow<OperationRow>(stack.services.databaseUrl, id);

  /** Polls a signature's status (no WebSocket: the test's Connection has none). */
  const landedStatus = async (signature: string) => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const { value } = await connection.getSignatureStatus(signature, {
        searchTransactionHistory: true,
      });
      if (value) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${signature} did not land`);
  };

  /** The item mint the stored transaction creates: its second signer. */
  const newMintOf = (signedTx: string): string =>
    VersionedTransaction.deserialize(
      Buffer.from(signedTx, 'base64'),
    ).message.staticAccountKeys[1].toBase58();

  it.each([
    ['after signing, before sending', 'crash-after-sign', 'signed', false],
    ['after sending, before confirmation', 'crash-after-broadcast', 'submitted', true],
  ])(
    'completes once when the worker is killed %s',
    async (_, fault, stateAtCrash, landedBeforeRestart) => {
      const sizeBefore = await groupSize(collection);
      const crashing = await stack.startWorker({ FAULT_INJECTION: fault });
      const id = await mintAsync(`crash ${fault}`);
      await waitForExit(crashing);
      expect(crashing.process.signalCode).toBe('SIGKILL');

      const signed = await operation(id);
      expect(signed.status).toBe(stateAtCrash);
      expect(signed.tx_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
      expect(Number(signed.last_valid_block_height)).toBeGreaterThan(
        await connection.getBlockHeight('confirmed'),
      );
      // The new item's keypair is kept with the operation, sealed (iv + tag + 32-byte seed).
      expect(signed.new_mint_secret).toBeInstanceOf(Buffer);
      expect(signed.new_mint_secret!.length).toBe(12 + 16 + 32);
      expect(signed.new_mint_key_id).toBe('local-dev');
      const status = await connection.getSignatureStatus(signed.tx_hash!, {
        searchTransactionHistory: true,
      });
      expect(status.value !== null).toBe(landedBeforeRestart);
      expect(await groupSize(collection)).toBe(sizeBefore + (landedBeforeRestart ? 1n : 0n));
      // The item's mint is known from the first signing on: GET /operations shows it in flight.
      const inFlight = await api.get(`/operations/${id}`);
      expect(inFlight.body.data).toMatchObject({
        status: stateAtCrash,
        tx: signed.tx_hash,
        mint_address: newMintOf(signed.signed_tx!),
        token_id: newMintOf(signed.signed_tx!),
      });

      await stack.startWorker();
      const confirmed = await waitForSettled(id);
      expect(confirmed.status).toBe('confirmed');
      // The same signed bytes were sent (or adopted): same signature, one item.
      expect(confirmed.tx_hash).toBe(signed.tx_hash);
      expect(confirmed.signed_tx).toBe(signed.signed_tx);
      // The item's mint is the row's from the first signing on (its result does not repeat it).
      expect(confirmed.new_mint_address).toBe(newMintOf(signed.signed_tx!));
      expect(confirmed.result).toEqual({});
      expect(await groupSize(collection)).toBe(sizeBefore + 1n);
      const items = await queryDatabase(
        stack.services.databaseUrl,
        'SELECT mint_address FROM nft_items WHERE operation_id = $1',
        [id],
      );
      expect(items).toEqual([{ mint_address: confirmed.new_mint_address }]);
      await stack.stopWorkers();
    },
  );

  it('adopts a transaction that landed with an error while the worker was down: failed, once', async () => {
    const sizeBefore = await groupSize(collection);
    const crashing = await stack.startWorker({ FAULT_INJECTION: 'crash-after-sign' });
    const id = await mintAsync('doomed');
    await waitForExit(crashing);
    const signed = await operation(id);
    expect(signed.status).toBe('signed');

    // Someone else makes the item's address exist, then sends the stored bytes without
    // preflight: they land, and fail (the mint account cannot be created any more).
    const itemMint = new PublicKey(newMintOf(signed.signed_tx!));
    await landedStatus(await connection.requestAirdrop(itemMint, 1_000_000));
    const landed = await connection.sendRawTransaction(Buffer.from(signed.signed_tx!, 'base64'), {
      skipPreflight: true,
    });
    expect(landed).toBe(signed.tx_hash);
    expect((await landedStatus(landed)).err).toEqual({ InstructionError: [1, { Custom: 0 }] });

    const worker = await stack.startWorker();
    const settled = await waitForSettled(id);
    expect(settled).toMatchObject({
      status: 'failed',
      tx_hash: signed.tx_hash,
      signed_tx: signed.signed_tx,
      error_code: 'BAD_GATEWAY',
    });
    const view = await api.get(`/operations/${id}`);
    expect(view.body.data).toMatchObject({
      status: 'failed',
      tx: signed.tx_hash,
      // In words: what the chain said ({"InstructionError":[1,{"Custom":0}]}) stays in the log.
      error: {
        error: 'Bad gateway',
        message:
          'The System program rejected the transaction (instruction 1: account already in use).',
      },
    });
    const logged = await waitForLogLine(
      worker,
      (line) => line.msg === 'Operation failed' && line.operationId === id,
    );
    expect(logged).toMatchObject({ chainError: '{"InstructionError":[1,{"Custom":0}]}' });
    expect(await groupSize(collection)).toBe(sizeBefore);
    const items = await queryDatabase(
      stack.services.databaseUrl,
      'SELECT 1 FROM nft_items WHERE operation_id = $1',
      [id],
    );
    expect(items).toEqual([]);
    await stack.stopWorkers();
  });

  it('enforces max_supply on chain when the service could not count ahead (mints queued at once)', async () => {
    await stack.startWorker();
    const created = await api.post('/nfts', {
      network: 'solana',
      name: 'Capped',
      description: 'two at most',
      images: [IMAGE],
      max_supply: 2,
    });
    expect(created.status).toBe(200);
    const capped = created.body.data.mint_address as string;
    await stack.stopWorkers();

    // No item is recorded yet, so the API accepts all four; the token group decides.
    const ids = await Promise.all([0, 1, 2, 3].map((i) => mintAsync(`capped ${i}`, capped)));
    await stack.startWorker();
    const rows = await Promise.all(ids.map((id) => waitForSettled(id)));
    expect(rows.map((row) => row.status).sort()).toEqual([
      'confirmed',
      'confirmed',
      'failed',
      'failed',
    ]);
    expect(rows.filter((row) => row.status === 'failed').map((row) => row.error_code)).toEqual([
      'CONFLICT',
      'CONFLICT',
    ]);
    const failed = ids[rows.findIndex((row) => row.status === 'failed')];
    const view = await api.get(`/operations/${failed}`);
    expect(view.body.data).toMatchObject({
      status: 'failed',
      error: { error: 'Conflict', message: expect.stringMatching(/max supply/) },
    });
    expect(await groupSize(capped)).toBe(2n);
    await stack.stopWorkers();
  });
});
