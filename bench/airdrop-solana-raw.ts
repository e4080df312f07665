/**
 * bench:airdrop's raw Solana baseline, run as a child process of the bench (so that it has a core
 * of its own, as the service's worker has, instead of sharing the bench's event loop with the
 * in-process local validator): what a developer would write with web3.js and spl-token to mint
 * a Token-2022 amount to each of N fresh recipients, one mint a transaction (the recipient's
 * associated account created idempotently, then mintToChecked), signed with node:crypto.
 * The instructions are built before the clock; every transaction is compiled and signed as it
 * is sent (a blockhash fetched once a second, which expires too soon to sign all ahead), without
 * preflight, `BENCH_AIRDROP_SOLANA_IN_FLIGHT` (128) sends in flight, and confirmed by batched
 * getSignatureStatuses (256 signatures a call) while the sends go on.
 *
 * Protocol with the parent (IPC): it sends `{ type: 'ready' }` once its wallet and mint exist,
 * waits for `{ type: 'go' }`, then sends `{ type: 'done', result }` or `{ type: 'error' }`.
 */
import {
  Connection,
  LAMPORTS_PER_SOL,
  PublicKey,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import {
  ed25519Signer,
  newEd25519Seed,
  signMessage,
  tokenCreateInstructions,
  type Ed25519Signer,
  type RentOf,
} from '@app/chains';

export interface RawSolanaInput {
  rpcUrl: string;
  items: number;
  inFlight: number;
  decimals: number;
  /** The run gives up on what has not landed by then (ms since the epoch). */
  deadline: number;
}

export interface RawSolanaResult {
  seconds: number;
  confirmed: number;
  failed: number;
  /** Sent but not confirmed when the deadline came. */
  unsettled: number;
  transactions: number;
  /** Slots from the first to the last landing, and our transactions per slot that held any. */
  slotSpan: number;
  perSlotMean: number;
  perSlotMax: number;
  /** The mint's supply, read from the chain after the run, over the initial supply plus every amount. */
  supplyMatches: boolean;
}

type Blockhash = { blockhash: string; lastValidBlockHeight: number };

/** The amount (in whole tokens) the bench gives entry `i`, the same for raw and service. */
export function airdropAmount(i: number): number {
  return (i % 1000) + 1;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.env.RAW_SOLANA_INPUT ?? '{}') as RawSolanaInput;
  const connection = new Connection(input.rpcUrl, { commitment: 'confirmed' });
  const payer = ed25519Signer(newEd25519Seed());
  const payerKey = new PublicKey(payer.address);
  await confirmed(connection, [await connection.requestAirdrop(payerKey, 100 * LAMPORTS_PER_SOL)]);
  const perByte = BigInt(await connection.getMinimumBalanceForRentExemption(0)) / 128n;
  const rentOf: RentOf = (length) => (128n + BigInt(length)) * perByte;
  const mintSigner = ed25519Signer(newEd25519Seed());
  const mint = new PublicKey(mintSigner.address);
  const unit = 10n ** BigInt(input.decimals);
  // The same mint as the service's token.create (MetadataPointer + metadata), one token to the payer.
  const create = tokenCreateInstructions({
    authority: payerKey,
    mint,
    decimals: input.decimals,
    initialSupply: unit,
    metadata: { name: 'Raw drop', symbol: 'RAW', uri: 'https://example.com/raw.json' },
    rentOf,
  });
  const first = await connection.getLatestBlockhash();
  await confirmed(connection, [
    await send(connection, payerKey, first, create, [payer, mintSigner]),
  ]);
  // Each recipient's mint, built before the clock (the associated account's address is a
  // derivation of ~0.5 ms): only compiling, signing and sending are timed, as the EVM raw
  // scripts sign everything ahead.
  const mints = Array.from({ length: input.items }, (_, i) => {
    const recipient = new PublicKey(ed25519Signer(newEd25519Seed()).address);
    const account = getAssociatedTokenAddressSync(mint, recipient, false, TOKEN_2022_PROGRAM_ID);
    return [
      createAssociatedTokenAccountIdempotentInstruction(
        payerKey,
        account,
        recipient,
        mint,
        TOKEN_2022_PROGRAM_ID,
      ),
      createMintToCheckedInstruction(
        mint,
        account,
        payerKey,
        BigInt(airdropAmount(i)) * unit,
        input.decimals,
        [],
        TOKEN_2022_PROGRAM_ID,
      ),
    ];
  });

  process.send!({ type: 'ready' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));

  const started = performance.now();
  let blockhash = { value: connection.getLatestBlockhash(), at: Date.now() };
  const latest = () => {
    if (Date.now() - blockhash.at > 1_000) {
      blockhash = { value: connection.getLatestBlockhash(), at: Date.now() };
    }
    return blockhash.value;
  };
  const pending: string[] = [];
  const slots = new Map<number, number>();
  let confirmedCount = 0;
  let failed = 0;
  let sendsDone = false;
  // Confirms while sending: every 100 ms, the statuses of what is pending, 256 a call.
  const confirming = (async () => {
    for (;;) {
      const batch = pending.splice(0, pending.length);
      const left: string[] = [];
      for (let i = 0; i < batch.length; i += 256) {
        const chunk = batch.slice(i, i + 256);
        const { value } = await connection.getSignatureStatuses(chunk);
        value.forEach((status, j) => {
          const landed =
            status?.confirmationStatus === 'confirmed' ||
            status?.confirmationStatus === 'finalized';
          if (status?.err) failed++;
          else if (landed) {
            confirmedCount++;
            slots.set(status.slot, (slots.get(status.slot) ?? 0) + 1);
          } else left.push(chunk[j]);
        });
      }
      pending.unshift(...left);
      if (sendsDone && confirmedCount + failed === input.items) return 0;
      if (Date.now() > input.deadline) return input.items - confirmedCount - failed;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(input.inFlight, input.items) }, async () => {
      while (next < input.items) {
        const i = next++;
        const instructions = mints[i];
        pending.push(await send(connection, payerKey, await latest(), instructions, [payer]));
      }
    }),
  );
  sendsDone = true;
  const unsettled = await confirming;
  const seconds = (performance.now() - started) / 1000;

  const supply = await connection.getTokenSupply(mint, 'confirmed');
  let expected = unit;
  for (let i = 0; i < input.items; i++) expected += BigInt(airdropAmount(i)) * unit;
  const landedSlots = [...slots.keys()];
  const result: RawSolanaResult = {
    seconds,
    confirmed: confirmedCount,
    failed,
    unsettled,
    transactions: input.items,
    slotSpan: landedSlots.length ? Math.max(...landedSlots) - Math.min(...landedSlots) + 1 : 0,
    perSlotMean: landedSlots.length ? confirmedCount / landedSlots.length : 0,
    perSlotMax: Math.max(0, ...slots.values()),
    supplyMatches: BigInt(supply.value.amount) === expected,
  };
  process.send!({ type: 'done', result });
}

async function send(
  connection: Connection,
  payer: PublicKey,
  blockhash: Blockhash,
  instructions: TransactionInstruction[],
  signers: Ed25519Signer[],
): Promise<string> {
  const message = new Transaction({ feePayer: payer, ...blockhash })
    .add(...instructions)
    .compileMessage();
  const { wire } = signMessage(message, signers);
  return connection.sendRawTransaction(wire, { skipPreflight: true, maxRetries: 0 });
}

async function confirmed(connection: Connection, signatures: string[]): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const { value } = await connection.getSignatureStatuses(signatures);
    const err = value.find((status) => status?.err);
    if (err) throw new Error(`setup transaction failed: ${JSON.stringify(err.err)}`);
    if (
      value.every(
        (status) => status?.confirmationStatus && status.confirmationStatus !== 'processed',
      )
    ) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('setup transaction not confirmed');
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.send?.({
        type: 'error',
        message: error instanceof Error ? error.stack : String(error),
      });
      process.exit(1);
    },
  );
}
