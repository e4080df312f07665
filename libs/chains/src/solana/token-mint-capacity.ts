import { PACKET_DATA_SIZE, PublicKey } from '@solana/web3.js';
import { compileLegacyMessage } from './legacy-message';
import { carrierNonce } from './carrier-nonce';
import { MAX_COMPUTE_UNITS, framedInstructions, signedTransactionLength } from './solana-planner';
import { U64_MAX, tokenMintBatchInstructions } from './token2022-instructions';
import {
  TOKEN_MINT_BATCH_BASE_COMPUTE_UNITS,
  TOKEN_MINT_COMPUTE_UNITS,
} from './token-mint-compute';

export interface TokenMintCapacityOptions {
  /** Compute units budgeted per recipient (default TOKEN_MINT_COMPUTE_UNITS). */
  computeUnitsPerMint?: number;
}

let fitBySize: number | undefined;

/**
 * How many recipients' mints one token.mintBatch transaction carries: the most whose legacy
 * transaction, signed, stays within the 1,232-byte packet limit and whose compute stays under
 * the 1.4M-unit ceiling.
 *
 * The size is the planner's own compilation of the worst case, not arithmetic: distinct
 * recipients (each adds its address and its associated account's, 64 bytes, and two
 * instructions, 26), a compute-unit price (the price instruction present), the carrier's nonce
 * (`carrierNonce`). Amounts and decimals have a fixed width, so they do not change it. Pure; the
 * size's answer is computed once.
 */
export function tokenMintsPerTransaction(options: TokenMintCapacityOptions = {}): number {
  const perMint = options.computeUnitsPerMint ?? TOKEN_MINT_COMPUTE_UNITS;
  const bySize = (fitBySize ??= mintsThatFit());
  const byCompute = Math.floor((MAX_COMPUTE_UNITS - TOKEN_MINT_BATCH_BASE_COMPUTE_UNITS) / perMint);
  return Math.max(0, Math.min(bySize, byCompute));
}

/** The signed size of the largest token.mintBatch transaction of `recipients` mints. */
export function worstTokenMintBatchLength(recipients: number): number {
  const payer = worstCaseKey(0xf0, 0);
  const mint = worstCaseKey(0xf1, 0);
  const mints = Array.from({ length: recipients }, (_, i) => ({
    recipient: worstCaseKey(0x01, i),
    amount: U64_MAX,
  }));
  const message = compileLegacyMessage(
    payer,
    worstCaseKey(0xf2, 0).toBase58(),
    framedInstructions(
      tokenMintBatchInstructions({ authority: payer, mint, mints, decimals: 9 }).instructions,
      carrierNonce('carrier'),
      { units: MAX_COMPUTE_UNITS, microLamports: 1 },
    ),
  );
  return signedTransactionLength(message);
}

function mintsThatFit(): number {
  let n = 0;
  while (worstTokenMintBatchLength(n + 1) <= PACKET_DATA_SIZE) n++;
  return n;
}

/** Distinct, fixed addresses (any 32 bytes will do: owners may be off curve). */
function worstCaseKey(tag: number, index: number): PublicKey {
  const bytes = Buffer.alloc(32, tag);
  bytes.writeUInt32LE(index, 0);
  return new PublicKey(bytes);
}
