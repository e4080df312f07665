import {
  Keypair,
  LAMPORTS_PER_SOL,
  SendTransactionError,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
  type Connection,
} from '@solana/web3.js';
import { startSolanaRpc, type SolanaRpcHandle } from '@app/localnet';
import { connect, fundedKeypair, letWebSocketIdle, rpcCall } from './solana-fixtures';

jest.setTimeout(30_000);

/** `localnet_setLamports [pubkey, lamports]`: the Solana counterpart of anvil_setBalance. */
describe('localnet_setLamports', () => {
  let solana: SolanaRpcHandle;
  let connection: Connection;

  beforeAll(async () => {
    solana = await startSolanaRpc({ port: 0, wsPort: 0, slotMs: 50 });
    connection = connect(solana.rpcUrl, solana.wsUrl);
  });

  afterAll(async () => {
    await letWebSocketIdle();
    await solana.stop();
  });

  const setLamports = (address: string, lamports: number) =>
    rpcCall(solana.rpcUrl, 'localnet_setLamports', [address, lamports]);

  it('drains a funded wallet so that it can no longer pay a fee, and refunds it', async () => {
    const wallet = await fundedKeypair(connection, 5);
    const transfer = () =>
      sendAndConfirmTransaction(
        connection,
        new Transaction().add(
          SystemProgram.transfer({
            fromPubkey: wallet.publicKey,
            toPubkey: Keypair.generate().publicKey,
            lamports: LAMPORTS_PER_SOL / 10,
          }),
        ),
        [wallet],
      );

    expect(await setLamports(wallet.publicKey.toBase58(), 0)).toMatchObject({ result: null });
    expect(await connection.getBalance(wallet.publicKey)).toBe(0);
    await expect(transfer()).rejects.toBeInstanceOf(SendTransactionError);

    await setLamports(wallet.publicKey.toBase58(), 2 * LAMPORTS_PER_SOL);
    expect(await connection.getBalance(wallet.publicKey)).toBe(2 * LAMPORTS_PER_SOL);
    await transfer();
    expect(await connection.getBalance(wallet.publicKey)).toBe(
      2 * LAMPORTS_PER_SOL - LAMPORTS_PER_SOL / 10 - 5000,
    );
  });

  it('creates a system account for an address the chain has never seen', async () => {
    const fresh = Keypair.generate().publicKey;
    await setLamports(fresh.toBase58(), 1234);
    const account = await connection.getAccountInfo(fresh);
    expect(account).toMatchObject({ lamports: 1234, executable: false });
    expect(account?.owner.equals(SystemProgram.programId)).toBe(true);
    expect(account?.data).toHaveLength(0);
  });

  it("keeps an existing account's owner and data", async () => {
    const payer = await fundedKeypair(connection, 1);
    const holder = Keypair.generate();
    const owner = Keypair.generate().publicKey;
    const rent = await connection.getMinimumBalanceForRentExemption(40);
    await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: holder.publicKey,
          lamports: rent,
          space: 40,
          programId: owner,
        }),
      ),
      [payer, holder],
    );

    await setLamports(holder.publicKey.toBase58(), rent + 777);
    const account = await connection.getAccountInfo(holder.publicKey);
    expect(account?.lamports).toBe(rent + 777);
    expect(account?.owner.equals(owner)).toBe(true);
    expect(account?.data).toHaveLength(40);
  });

  it('refuses a bad pubkey or amount', async () => {
    const address = Keypair.generate().publicKey.toBase58();
    for (const params of [['not-a-pubkey', 1], [address, -1], [address, 1.5], [address]]) {
      const reply = await rpcCall(solana.rpcUrl, 'localnet_setLamports', params);
      expect(reply.error).toMatchObject({ code: -32602 });
    }
  });
});
