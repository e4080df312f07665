import type { TransactionErrorJson } from './transaction-error.mapper';
import type { UiTokenAmount } from './token.layout';
import type { WireTransaction } from './wire-transaction.decoder';

export interface AccountState {
  lamports: bigint;
  owner: string;
  executable: boolean;
  rentEpoch: bigint;
  data: Uint8Array;
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

export interface UiInnerInstruction {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number;
}

export interface ExecutionDetails {
  logs: string[];
  innerInstructions: { index: number; instructions: UiInnerInstruction[] }[];
  computeUnitsConsumed: number;
  returnData: { programId: string; data: [string, 'base64'] } | null;
}

export interface TransactionRecord {
  signature: string;
  slot: number;
  blockTime: number;
  tx: WireTransaction;
  /** Static keys, then the writable and the readonly keys loaded from lookup tables. */
  accountKeys: string[];
  loadedAddresses: { writable: string[]; readonly: string[] };
  err: TransactionErrorJson | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  /** Logs and the rest, converted from litesvm's metadata on first use. */
  details(): ExecutionDetails;
}

export interface SimulationResult {
  accountKeys: string[];
  err: TransactionErrorJson | null;
  errMessage: string | null;
  details: ExecutionDetails;
  fee: bigint;
  postAccounts: (AccountState | null)[];
}

export type SubmitResult =
  | { status: 'landed' | 'duplicate'; record: TransactionRecord }
  /** Accepted (skipPreflight) but will never land, as with a stale blockhash on a validator. */
  | { status: 'dropped'; signature: string }
  /** Preflight refused it: nothing was executed. */
  | { status: 'rejected'; simulation: SimulationResult };

export interface LedgerListener {
  onSlot?(slot: number): void;
  onTransaction?(record: TransactionRecord, writableKeys: string[]): void;
}

export const EMPTY_DETAILS: ExecutionDetails = {
  logs: [],
  innerInstructions: [],
  computeUnitsConsumed: 0,
  returnData: null,
};
