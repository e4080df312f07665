import type { Account, TransactionMetadata } from 'litesvm/dist/internal';
import bs58 from 'bs58';
import type { AccountState, ExecutionDetails } from './ledger.types';

/** litesvm's native objects, converted to the plain shapes the RPC layer encodes. */
export function toAccountState(account: Account | null): AccountState | null {
  if (!account || account.lamports() === 0n) return null;
  return {
    lamports: account.lamports(),
    owner: bs58.encode(account.owner()),
    executable: account.executable(),
    rentEpoch: account.rentEpoch(),
    data: account.data(),
  };
}

export function toDetails(meta: TransactionMetadata): ExecutionDetails {
  const returnData = meta.returnData();
  const returnBytes = returnData.data();
  return {
    logs: meta.logs(),
    innerInstructions: meta
      .innerInstructions()
      .map((instructions, index) => ({
        index,
        instructions: instructions.map((inner) => {
          const ix = inner.instruction();
          return {
            programIdIndex: ix.programIdIndex(),
            accounts: [...ix.accounts()],
            data: bs58.encode(ix.data()),
            stackHeight: inner.stackHeight(),
          };
        }),
      }))
      .filter((entry) => entry.instructions.length > 0),
    computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
    returnData:
      returnBytes.length > 0
        ? {
            programId: bs58.encode(returnData.programId()),
            data: [Buffer.from(returnBytes).toString('base64'), 'base64'],
          }
        : null,
  };
}
