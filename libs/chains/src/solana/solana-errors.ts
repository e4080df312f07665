import { SystemProgram, VersionedTransaction } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { AppError, type AssetIntent } from '@app/common';
import { ChainRejection } from '../chain-rejection';
import type { TransactionErrorJson } from './signature-status.batcher';
import { solanaProgramName } from './solana-known-accounts';

const TOKEN_2022 = TOKEN_2022_PROGRAM_ID.toBase58();
const SYSTEM = SystemProgram.programId.toBase58();

/** Token-2022's own errors (spl-token-2022 `TokenError`). */
const TOKEN_INSUFFICIENT_FUNDS = 1;
const TOKEN_OWNER_MISMATCH = 4;
const TOKEN_FIXED_SUPPLY = 5;
const TOKEN_OVERFLOW = 14;
/** The token-group interface's errors, as Token-2022 returns them. */
const GROUP_SIZE_EXCEEDS_MAX_SIZE = 3_406_457_177;
const GROUP_INCORRECT_MINT_AUTHORITY = 3_406_457_179;
const GROUP_INCORRECT_UPDATE_AUTHORITY = 3_406_457_180;
/** System program: the fee payer cannot fund a new account. */
const SYSTEM_RESULT_WITH_NEGATIVE_LAMPORTS = 1;

/** The program each instruction of a wire transaction calls, by instruction index. */
export function instructionPrograms(wire: Buffer | Uint8Array): string[] {
  const message = VersionedTransaction.deserialize(wire).message;
  const keys = message.staticAccountKeys;
  return message.compiledInstructions.map((ix) => keys[ix.programIdIndex]?.toBase58() ?? '');
}

/** The System program's errors (`SystemError`), by code. */
const SYSTEM_ERRORS = [
  'AccountAlreadyInUse',
  'ResultWithNegativeLamports',
  'InvalidProgramId',
  'InvalidAccountDataLength',
  'MaxSeedLengthExceeded',
  'AddressWithSeedMismatch',
  'NonceNoRecentBlockhashes',
  'NonceBlockhashNotExpired',
  'NonceUnexpectedBlockhashValue',
];
/** Variant names of Solana's TransactionError and InstructionError ("IncorrectProgramId"). */
const VARIANT_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

/**
 * A failed (or refused) transaction as the client's error (contract: 403 authority, 409 state),
 * else a 502 saying in words what the chain refused. `programs` tells which program each
 * instruction calls. What the chain said, as it said it, is the error's `detail` (for the log).
 */
export function solanaErrorToAppError(
  err: TransactionErrorJson,
  programs: string[],
  intent: AssetIntent,
): ChainRejection {
  const error = clientError(err, programs, intent);
  return new ChainRejection(error.code, error.message, err);
}

/**
 * Whether the chain refused for the fee payer's lack of SOL: for the fee (or a debit of an
 * account it never credited: a wallet with no lamports at all), for the rent of a new account,
 * or a System transfer that would leave it negative.
 */
export function isSolanaFundsError(err: TransactionErrorJson, programs: string[]): boolean {
  if (err === 'InsufficientFundsForFee' || err === 'AccountNotFound') return true;
  if (isObject(err) && 'InsufficientFundsForRent' in err) return true;
  const failed = instructionError(err);
  return (
    failed !== null &&
    programs[failed.index] === SYSTEM &&
    failed.custom === SYSTEM_RESULT_WITH_NEGATIVE_LAMPORTS
  );
}

function clientError(err: TransactionErrorJson, programs: string[], intent: AssetIntent): AppError {
  if (isSolanaFundsError(err, programs)) {
    return new AppError(
      'INSUFFICIENT_FUNDS',
      'Insufficient funds: the managed wallet lacks SOL for the fee or the rent of new accounts.',
    );
  }
  const failed = instructionError(err);
  if (failed) {
    const program = programs[failed.index];
    const { custom, name } = failed;
    if (program === TOKEN_2022) {
      const mapped = tokenProgramError(custom, name, intent);
      if (mapped) return mapped;
    }
  }
  return new AppError('BAD_GATEWAY', plainRefusal(err, programs));
}

/**
 * What the chain refused, in words: "The Token-2022 program rejected the transaction (instruction
 * 2: incorrect program id)." Only variant names and numbers are taken from the error, never its
 * payloads.
 */
function plainRefusal(err: TransactionErrorJson, programs: string[]): string {
  const failed = instructionError(err);
  if (failed) {
    const program = programs[failed.index] ?? '';
    const name = solanaProgramName(program);
    const who = name ? name.charAt(0).toUpperCase() + name.slice(1) : 'A Solana program';
    const reason =
      failed.custom !== undefined
        ? customError(program, failed.custom)
        : failed.name
          ? words(failed.name)
          : null;
    return `${who} rejected the transaction (instruction ${failed.index}${reason ? `: ${reason}` : ''}).`;
  }
  const variant = typeof err === 'string' ? err : isObject(err) ? Object.keys(err)[0] : undefined;
  const reason = variant === undefined ? null : words(variant);
  return `The chain rejected the transaction${reason ? ` (${reason})` : ''}.`;
}

function customError(program: string, code: number): string {
  const known = program === SYSTEM ? SYSTEM_ERRORS[code] : undefined;
  return known ? words(known)! : `custom error ${code}`;
}

/** "IncorrectProgramId" as "incorrect program id"; null for what is not a variant name. */
function words(variant: string): string | null {
  if (!VARIANT_NAME.test(variant)) return null;
  return variant
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
}

function tokenProgramError(
  custom: number | undefined,
  name: string | undefined,
  intent: AssetIntent,
): AppError | null {
  const nft = intent.kind === 'nft.transfer' || intent.kind === 'nft.burn';
  switch (custom) {
    case TOKEN_INSUFFICIENT_FUNDS:
      return nft
        ? new AppError('FORBIDDEN', 'The managed wallet does not hold this item.')
        : AppError.conflict('Insufficient balance: the managed wallet holds less than the amount.');
    case TOKEN_OWNER_MISMATCH:
    case GROUP_INCORRECT_MINT_AUTHORITY:
    case GROUP_INCORRECT_UPDATE_AUTHORITY:
      return new AppError(
        'FORBIDDEN',
        nft
          ? 'The managed wallet does not hold this item.'
          : 'The managed wallet lacks authority over this asset.',
      );
    case TOKEN_FIXED_SUPPLY:
      return new AppError(
        'FORBIDDEN',
        'The supply of this asset is fixed: it has no mint authority.',
      );
    case TOKEN_OVERFLOW:
      return AppError.conflict('The amount would overflow the token supply (u64).');
    case GROUP_SIZE_EXCEEDS_MAX_SIZE:
      return AppError.conflict('The collection has reached its max supply.');
    default:
      break;
  }
  // An account that does not exist or is not a token account: nothing held. A token account
  // closed since the transaction was planned (an identical transfer or burn landed first) is
  // the System program's again, which Token-2022 refuses as IncorrectProgramId.
  if (
    name === 'UninitializedAccount' ||
    name === 'InvalidAccountData' ||
    name === 'IncorrectProgramId'
  ) {
    if (nft) return new AppError('FORBIDDEN', 'The managed wallet does not hold this item.');
    if (intent.kind === 'token.burn' || intent.kind === 'token.transfer') {
      return AppError.conflict(
        'Insufficient balance: the managed wallet holds none of this token.',
      );
    }
  }
  return null;
}

function instructionError(
  err: TransactionErrorJson,
): { index: number; custom?: number; name?: string } | null {
  if (!isObject(err) || !('InstructionError' in err)) return null;
  const detail = err.InstructionError;
  if (!Array.isArray(detail) || typeof detail[0] !== 'number') return null;
  const [index, reason] = detail as [number, unknown];
  if (typeof reason === 'string') return { index, name: reason };
  if (!isObject(reason)) return { index };
  if (typeof reason.Custom === 'number') return { index, custom: reason.Custom };
  // A variant with a payload (`{ BorshIoError: "..." }`): its name, not what it carries.
  const [variant] = Object.keys(reason);
  return variant === undefined ? { index } : { index, name: variant };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
