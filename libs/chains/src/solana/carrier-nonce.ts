import { createHash } from 'node:crypto';
import { ComputeBudgetProgram, TransactionInstruction } from '@solana/web3.js';

/** ComputeBudget's SetLoadedAccountsDataSizeLimit: its tag, then the limit (u32, little-endian). */
const SET_LOADED_ACCOUNTS_DATA_SIZE_LIMIT = 4;
/**
 * Far above what a carrier loads (Token-2022's and the associated-token program's code, a few
 * small accounts: under 2 MiB) and, with the nonce added, below the runtime's 64 MiB ceiling.
 */
const LOADED_DATA_FLOOR = 16 * 1024 * 1024;
const NONCE_BITS = 24;

/**
 * What makes an airdrop carrier's transaction its own, in 8 bytes where a memo naming it takes
 * 75 (the memo program's address and the `ais:<uuid>` text): the loaded-accounts data limit of
 * its compute budget, raised by a 24-bit nonce drawn from the carrier's id. The budget's program
 * is in the transaction already (its compute-unit limit and price), so the nonce adds no address;
 * the 67 bytes saved are a tenth recipient (90 bytes with the memo over the 1,232-byte packet, 10
 * within it without: 1,000 transactions for 10,000 entries, not 1,112).
 *
 * Two carriers' transactions are the same only with the same payer, blockhash, compute budget
 * and recipients with their amounts, and then only when their nonces meet (one chance in 16.7
 * million). Even then neither adopts the other's signature: the transactions table holds one row
 * per signature, so the second signing's write fails, is retried, and is signed anew under a
 * later blockhash. The limit changes no fee; it only caps what the transaction may load.
 */
export function carrierNonce(operationId: string): TransactionInstruction {
  const nonce = createHash('sha256')
    .update(operationId)
    .digest()
    .readUIntLE(0, NONCE_BITS / 8);
  const data = Buffer.alloc(5);
  data.writeUInt8(SET_LOADED_ACCOUNTS_DATA_SIZE_LIMIT, 0);
  data.writeUInt32LE(LOADED_DATA_FLOOR + nonce, 1);
  return new TransactionInstruction({ programId: ComputeBudgetProgram.programId, keys: [], data });
}
