import { PublicKey, TransactionInstruction } from '@solana/web3.js';

/** SPL Memo v2: part of every cluster (and of the local validator), no account to create. */
export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** What every memo the service writes starts with, before the operation id. */
export const OPERATION_MEMO_PREFIX = 'ais:';

/**
 * The memo naming the operation a transaction carries out. Two operations with the same intent
 * would otherwise compile to the same message (same signer, instructions and, within a slot or
 * so, blockhash), so the same signature: the chain runs it once and both would adopt it. The
 * memo makes every operation's message, and so its signature, its own; explorers show it.
 *
 * It lists no signer accounts: Memo v2 then only logs the text (about 290 compute units, where
 * naming the fee payer as signer costs about 510 and one more account meta). The fee payer's
 * signature already covers the whole message, memo included, so a signer check adds nothing.
 */
export function operationMemo(operationId: string): TransactionInstruction {
  return new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [],
    data: Buffer.from(`${OPERATION_MEMO_PREFIX}${operationId}`, 'utf8'),
  });
}
