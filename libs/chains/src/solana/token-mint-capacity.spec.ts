import { randomUUID } from 'node:crypto';
import { ComputeBudgetProgram, Keypair, PACKET_DATA_SIZE, Transaction } from '@solana/web3.js';
import type { AssetIntent } from '@app/common';
import type { SolanaNetworkDefinition } from '../networks/network-definition';
import { carrierNonce } from './carrier-nonce';
import {
  framedInstructions,
  planSolanaTransaction,
  signedTransactionLength,
} from './solana-planner';
import type { SolanaAdapter } from './solana.adapter';
import { tokenMintBatchInstructions } from './token2022-instructions';
import { tokenMintsPerTransaction, worstTokenMintBatchLength } from './token-mint-capacity';
import { TOKEN_MINT_COMPUTE_UNITS } from './token-mint-compute';

const network = { network: 'solana', chainKey: 'solana:test' } as SolanaNetworkDefinition;
const payer = Keypair.generate().publicKey;
const mint = Keypair.generate().publicKey;
const BLOCKHASH = Keypair.generate().publicKey.toBase58();

/** The chain as the planner sees it, paying a compute-unit price (its instruction is in). */
const adapter = {
  latestBlockhash: () => Promise.resolve({ blockhash: BLOCKHASH, lastValidBlockHeight: 150n }),
  recentPrioritizationFees: () => Promise.resolve([]),
  simulate: () => Promise.resolve({ err: null, logs: [], unitsConsumed: 200_000 }),
} as unknown as SolanaAdapter;
const settings = {
  priorityFeeMicroLamports: 2_000_000,
  priorityFeeMaxMicroLamports: 2_000_000,
  priorityFeePercentile: 75,
  computeUnitMarginPercent: 20,
};

const owners = (count: number) => Array.from({ length: count }, () => Keypair.generate().publicKey);

function batch(count: number): AssetIntent {
  return {
    kind: 'token.mintBatch',
    asset: mint.toBase58(),
    recipients: owners(count).map((owner) => owner.toBase58()),
    amounts: Array<string>(count).fill('18446744073709551615'),
    decimals: 9,
  };
}

const plan = (intent: AssetIntent, operationId: string = randomUUID()) =>
  planSolanaTransaction(
    adapter,
    network,
    payer.toBase58(),
    operationId,
    intent,
    undefined,
    settings,
  );

describe('tokenMintsPerTransaction', () => {
  const n = tokenMintsPerTransaction();

  it('is bound by the packet size: 10 mints of distinct recipients', () => {
    expect(n).toBe(10);
    expect(n * TOKEN_MINT_COMPUTE_UNITS).toBeLessThan(1_400_000);
  });

  it('n recipients plan to at most 1,232 bytes signed; n + 1 do not fit', async () => {
    const fits = await plan(batch(n));
    const length = signedTransactionLength(fits.message);
    expect(length).toBeLessThanOrEqual(PACKET_DATA_SIZE);
    expect(length).toBe(worstTokenMintBatchLength(n));
    expect(worstTokenMintBatchLength(n + 1)).toBeGreaterThan(PACKET_DATA_SIZE);
    // The planner refuses what no node would take, before simulating it.
    await expect(plan(batch(n + 1))).rejects.toThrow(
      new RangeError(
        `the token.mintBatch transaction is ${worstTokenMintBatchLength(n + 1)} bytes ` +
          `signed, over Solana's 1232-byte limit`,
      ),
    );
  });

  it("agrees with web3.js's own serialization and its packet check", () => {
    const serialized = (count: number) => {
      const tx = new Transaction({ feePayer: payer, recentBlockhash: BLOCKHASH }).add(
        ...framedInstructions(
          tokenMintBatchInstructions({
            authority: payer,
            mint,
            mints: owners(count).map((recipient) => ({ recipient, amount: 1n })),
            decimals: 9,
          }).instructions,
          carrierNonce(randomUUID()),
          { units: 1_400_000, microLamports: 1 },
        ),
      );
      tx.addSignature(payer, Buffer.alloc(64));
      return tx.serialize({ verifySignatures: false });
    };
    expect(serialized(n).length).toBe(worstTokenMintBatchLength(n));
    expect(() => serialized(n + 1)).toThrow(/Transaction too large/);
  });

  it('shrinks with a larger compute budget per recipient', () => {
    expect(tokenMintsPerTransaction({ computeUnitsPerMint: 300_000 })).toBe(4);
  });
});

describe('token.mintBatch planning', () => {
  it('is, recipient by recipient, what a single token.mint plans', async () => {
    const intent = batch(3) as Extract<AssetIntent, { kind: 'token.mintBatch' }>;
    const operationId = randomUUID();
    const whole = await plan(intent, operationId);
    const singles = await Promise.all(
      intent.recipients.map((recipient, i) =>
        plan(
          {
            kind: 'token.mint',
            asset: intent.asset,
            recipient,
            amount: intent.amounts[i],
            decimals: intent.decimals,
          },
          operationId,
        ),
      ),
    );
    const instructions = (bytes: Buffer) => Transaction.from(signedWire(bytes)).instructions;
    const body = (bytes: Buffer) => instructions(bytes).slice(2, -1);
    expect(body(whole.message.bytes)).toEqual(singles.flatMap((one) => body(one.message.bytes)));
  });

  it("ends with the carrier's nonce, not a memo: two carriers of the same mints differ by it", async () => {
    const intent = batch(2);
    const [first, again, other] = await Promise.all([
      plan(intent, 'carrier-1'),
      plan(intent, 'carrier-1'),
      plan(intent, 'carrier-2'),
    ]);
    const last = (bytes: Buffer) => Transaction.from(signedWire(bytes)).instructions.at(-1)!;
    const nonce = last(first.message.bytes);
    expect(nonce.programId.equals(ComputeBudgetProgram.programId)).toBe(true);
    // SetLoadedAccountsDataSizeLimit, between 16 MiB and 32 MiB.
    expect(nonce.data[0]).toBe(4);
    expect(nonce.data.readUInt32LE(1)).toBeGreaterThanOrEqual(16 * 1024 * 1024);
    expect(nonce.data.readUInt32LE(1)).toBeLessThan(32 * 1024 * 1024);
    expect(again.message.bytes).toEqual(first.message.bytes);
    expect(other.message.bytes).not.toEqual(first.message.bytes);
    expect(last(other.message.bytes).data).not.toEqual(nonce.data);
  });

  it('refuses a batch without recipients or with an amount missing', async () => {
    const intent = batch(2) as Extract<AssetIntent, { kind: 'token.mintBatch' }>;
    await expect(plan({ ...intent, amounts: ['1'] })).rejects.toThrow(RangeError);
    await expect(plan({ ...intent, recipients: [], amounts: [] })).rejects.toThrow(RangeError);
  });

  it('does not plan nft.mintBatch on Solana: its items go out one by one', async () => {
    await expect(
      plan({ kind: 'nft.mintBatch', collection: mint.toBase58(), recipients: [] }),
    ).rejects.toThrow(/nft.mintBatch is not planned on Solana/);
  });
});

/** A legacy message as web3.js reads a wire transaction: one zeroed signature in front. */
function signedWire(message: Buffer): Buffer {
  return Buffer.concat([Buffer.from([1]), Buffer.alloc(64), message]);
}
