import {
  ComputeBudgetInstruction,
  ComputeBudgetProgram,
  Keypair,
  Message,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import type { AssetIntent } from '@app/common';
import type { SolanaNetworkDefinition } from '../networks/network-definition';
import { MEMO_PROGRAM_ID } from './operation-memo';
import { planSolanaTransaction, type SolanaSendSettings } from './solana-planner';
import type { SolanaAdapter } from './solana.adapter';
import { tokenAccountOf } from './token2022-instructions';

const network = { network: 'solana', chainKey: 'solana:test' } as SolanaNetworkDefinition;
const payer = Keypair.generate().publicKey;
const mint = Keypair.generate().publicKey;
const recipient = Keypair.generate().publicKey;
const BLOCKHASH = Keypair.generate().publicKey.toBase58();
const intent: AssetIntent = {
  kind: 'token.mint',
  asset: mint.toBase58(),
  recipient: recipient.toBase58(),
  amount: '1',
  decimals: 0,
};
const settings: SolanaSendSettings = {
  priorityFeeMicroLamports: 0,
  priorityFeeMaxMicroLamports: 1_000_000,
  priorityFeePercentile: 75,
  computeUnitMarginPercent: 20,
};

/** The chain as the planner sees it: one blockhash, the given per-slot fees, a simulation. */
function chain(fees: number[]) {
  const calls = { fees: [] as string[][], simulated: [] as Buffer[] };
  const adapter = {
    latestBlockhash: () => Promise.resolve({ blockhash: BLOCKHASH, lastValidBlockHeight: 150n }),
    recentPrioritizationFees: (_: SolanaNetworkDefinition, writable: string[]) => {
      calls.fees.push(writable);
      return Promise.resolve(fees);
    },
    simulate: (_: SolanaNetworkDefinition, wire: Buffer) => {
      calls.simulated.push(wire);
      return Promise.resolve({ err: null, logs: [], unitsConsumed: 10_000 });
    },
  } as unknown as SolanaAdapter;
  return { adapter, calls };
}

async function plan(
  adapter: SolanaAdapter,
  operationId: string,
  overrides: Partial<SolanaSendSettings> = {},
): Promise<{ bytes: Buffer; instructions: TransactionInstruction[] }> {
  const planned = await planSolanaTransaction(
    adapter,
    network,
    payer.toBase58(),
    operationId,
    intent,
    undefined,
    { ...settings, ...overrides },
  );
  const bytes = planned.message.bytes;
  return { bytes, instructions: Transaction.populate(Message.from(bytes)).instructions };
}

function priceOf(instructions: TransactionInstruction[]): number | null {
  const ix = instructions.find(
    (candidate) =>
      candidate.programId.equals(ComputeBudgetProgram.programId) &&
      ComputeBudgetInstruction.decodeInstructionType(candidate) === 'SetComputeUnitPrice',
  );
  return ix ? Number(ComputeBudgetInstruction.decodeSetComputeUnitPrice(ix).microLamports) : null;
}

describe('planSolanaTransaction', () => {
  it('ends every transaction with a memo naming its operation: one intent, two signatures', async () => {
    const { adapter } = chain([]);
    const first = await plan(adapter, 'op-1');
    const second = await plan(adapter, 'op-2');
    const memo = first.instructions.at(-1)!;
    expect(memo.programId.equals(MEMO_PROGRAM_ID)).toBe(true);
    expect(memo.keys).toEqual([]);
    expect(memo.data.toString('utf8')).toBe('ais:op-1');
    expect(second.instructions.at(-1)!.data.toString('utf8')).toBe('ais:op-2');
    // Same signer, instructions and blockhash: only the memo tells them apart.
    expect(first.bytes.equals(second.bytes)).toBe(false);
    expect((await plan(adapter, 'op-1')).bytes.equals(first.bytes)).toBe(true);
  });

  it('sizes the compute-unit limit on a simulation that includes the memo', async () => {
    const { adapter, calls } = chain([]);
    await plan(adapter, 'op-sized');
    expect(calls.simulated).toHaveLength(1);
    expect(calls.simulated[0].includes(Buffer.from('ais:op-sized'))).toBe(true);
  });

  it("pays the percentile of the written accounts' recent fees, within floor and cap", async () => {
    const { adapter, calls } = chain([0, 4_000, 6_000, 9_000]);
    expect(priceOf((await plan(adapter, 'op')).instructions)).toBe(6_000);
    // Every account the transaction write-locks, the fee payer first.
    expect(calls.fees[0][0]).toBe(payer.toBase58());
    expect([...calls.fees[0]].sort()).toEqual(
      [payer, mint, tokenAccountOf(mint, recipient)].map((key) => key.toBase58()).sort(),
    );
    const capped = await plan(adapter, 'op', { priorityFeeMaxMicroLamports: 5_000 });
    expect(priceOf(capped.instructions)).toBe(5_000);
    const floored = await plan(adapter, 'op', { priorityFeeMicroLamports: 7_000 });
    expect(priceOf(floored.instructions)).toBe(7_000);
  });

  it("prices a new item by what its collection's every mint writes, not by its own new accounts", async () => {
    const { adapter, calls } = chain([0, 4_000, 6_000, 9_000]);
    const collection = Keypair.generate().publicKey;
    const item = Keypair.generate().publicKey;
    const planned = await planSolanaTransaction(
      { ...adapter, rentOf: () => Promise.resolve(() => 1_000_000) } as unknown as SolanaAdapter,
      network,
      payer.toBase58(),
      'op-item',
      {
        kind: 'nft.mint',
        collection: collection.toBase58(),
        recipient: recipient.toBase58(),
        name: 'Item',
        metadataUri: 'https://example.com/item.json',
      },
      item.toBase58(),
      settings,
    );
    expect(calls.fees).toEqual([[payer, collection].map((key) => key.toBase58())]);
    const written = Transaction.populate(Message.from(planned.message.bytes))
      .instructions.flatMap((ix) => ix.keys.filter((key) => key.isWritable))
      .map((key) => key.pubkey.toBase58());
    // What it leaves out are the accounts the transaction itself creates.
    expect(written).toEqual(
      expect.arrayContaining([item, tokenAccountOf(item, recipient), collection].map(String)),
    );
    expect(priceOf(Transaction.populate(Message.from(planned.message.bytes)).instructions)).toBe(
      6_000,
    );
  });

  it('sends no price when the network asks none and there is no floor', async () => {
    const { adapter } = chain([0, 0, 0]);
    expect(priceOf((await plan(adapter, 'op')).instructions)).toBeNull();
  });

  it('asks the network nothing when the cap leaves nothing above the floor', async () => {
    const { adapter, calls } = chain([9_000]);
    const pinned = await plan(adapter, 'op', {
      priorityFeeMicroLamports: 300,
      priorityFeeMaxMicroLamports: 300,
    });
    expect(priceOf(pinned.instructions)).toBe(300);
    expect(calls.fees).toEqual([]);
  });
});
