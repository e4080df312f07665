import bs58 from 'bs58';
import type { ExecutionDetails, TransactionRecord } from './ledger.types';
import { isWritable, type WireTransaction } from './wire-transaction.decoder';

export type TransactionEncoding = 'json' | 'jsonParsed' | 'base58' | 'base64';

/** getTransaction's answer for a recorded transaction, in the encoding the client asked for. */
export function encodeTransactionRecord(
  record: TransactionRecord,
  encoding: TransactionEncoding,
  includeVersion: boolean,
): Record<string, unknown> {
  const details = record.details();
  const parsed = encoding === 'jsonParsed';
  const result: Record<string, unknown> = {
    slot: record.slot,
    blockTime: record.blockTime,
    transaction: encodeTransaction(record, encoding),
    meta: {
      err: record.err,
      status: record.err === null ? { Ok: null } : { Err: record.err },
      fee: Number(record.fee),
      preBalances: record.preBalances.map(Number),
      postBalances: record.postBalances.map(Number),
      innerInstructions: parsed
        ? details.innerInstructions.map(({ index, instructions }) => ({
            index,
            instructions: instructions.map((ix) =>
              partiallyDecoded(
                record.accountKeys,
                ix.programIdIndex,
                ix.accounts,
                ix.data,
                ix.stackHeight,
              ),
            ),
          }))
        : details.innerInstructions,
      logMessages: details.logs,
      preTokenBalances: record.preTokenBalances,
      postTokenBalances: record.postTokenBalances,
      rewards: [],
      loadedAddresses: record.loadedAddresses,
      computeUnitsConsumed: details.computeUnitsConsumed,
      ...(details.returnData ? { returnData: details.returnData } : {}),
    },
  };
  if (includeVersion) result.version = record.tx.version;
  return result;
}

function encodeTransaction(record: TransactionRecord, encoding: TransactionEncoding): unknown {
  const { tx } = record;
  switch (encoding) {
    case 'base64':
      return [Buffer.from(tx.bytes).toString('base64'), 'base64'];
    case 'base58':
      return [bs58.encode(tx.bytes), 'base58'];
    case 'json':
      return {
        signatures: tx.signatures,
        message: {
          accountKeys: tx.staticAccounts,
          header: tx.header,
          recentBlockhash: tx.recentBlockhash,
          instructions: tx.instructions.map((ix) => ({
            programIdIndex: ix.programIdIndex,
            accounts: ix.accounts,
            data: bs58.encode(ix.data),
            stackHeight: null,
          })),
          ...lookups(tx),
        },
      };
    case 'jsonParsed':
      return {
        signatures: tx.signatures,
        message: {
          accountKeys: record.accountKeys.map((pubkey, i) => ({
            pubkey,
            writable:
              i < tx.staticAccounts.length
                ? isWritable(tx, i)
                : i < tx.staticAccounts.length + record.loadedAddresses.writable.length,
            signer: i < tx.header.numRequiredSignatures,
            source: i < tx.staticAccounts.length ? 'transaction' : 'lookupTable',
          })),
          recentBlockhash: tx.recentBlockhash,
          instructions: tx.instructions.map((ix) =>
            partiallyDecoded(
              record.accountKeys,
              ix.programIdIndex,
              ix.accounts,
              bs58.encode(ix.data),
              null,
            ),
          ),
          ...lookups(tx),
        },
      };
  }
}

function lookups(tx: WireTransaction): { addressTableLookups?: unknown } {
  return tx.version === 0 ? { addressTableLookups: tx.addressTableLookups } : {};
}

/** The form validators use for instructions of programs they have no parser for. */
function partiallyDecoded(
  accountKeys: string[],
  programIdIndex: number,
  accounts: number[],
  data: string,
  stackHeight: number | null,
): { programId: string; accounts: string[]; data: string; stackHeight: number | null } {
  return {
    programId: accountKeys[programIdIndex],
    accounts: accounts.map((i) => accountKeys[i]),
    data,
    stackHeight,
  };
}

/** Inner instructions as simulateTransaction returns them (parsed form). */
export function encodeSimulatedInnerInstructions(
  accountKeys: string[],
  details: ExecutionDetails,
): { index: number; instructions: unknown[] }[] {
  return details.innerInstructions.map(({ index, instructions }) => ({
    index,
    instructions: instructions.map((ix) =>
      partiallyDecoded(accountKeys, ix.programIdIndex, ix.accounts, ix.data, ix.stackHeight),
    ),
  }));
}
