import bs58 from 'bs58';
import type { AccountState } from './ledger.types';
import { RpcError, RpcErrorCode } from './rpc.errors';
import { describe } from './rpc-params.util';
import {
  isTokenProgram,
  programName,
  readExtensions,
  readMint,
  readTokenAccount,
  uiTokenAmount,
} from './token.layout';

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed';
export interface DataSlice {
  offset: number;
  length: number;
}

export interface UiAccount {
  lamports: number;
  owner: string;
  executable: boolean;
  rentEpoch: number;
  space: number;
  data: string | [string, string] | { program: string; parsed: unknown; space: number };
}

const ENCODINGS: readonly string[] = ['binary', 'base58', 'base64', 'base64+zstd', 'jsonParsed'];

export function parseAccountEncoding(value: unknown, fallback: AccountEncoding): AccountEncoding {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !ENCODINGS.includes(value)) {
    throw RpcError.invalidParams(
      `Invalid params: unknown variant ${describe(value)}, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\`.`,
    );
  }
  if (value === 'base64+zstd')
    throw RpcError.invalidParams(
      'Invalid params: base64+zstd encoding is not supported by this local validator',
    );
  return value as AccountEncoding;
}

export function parseDataSlice(value: unknown): DataSlice | undefined {
  if (value === undefined || value === null) return undefined;
  const slice = value as Partial<DataSlice>;
  if (
    typeof slice !== 'object' ||
    !Number.isInteger(slice.offset) ||
    !Number.isInteger(slice.length)
  ) {
    throw RpcError.invalidParams(
      'Invalid params: dataSlice must be { offset: number, length: number }',
    );
  }
  return { offset: slice.offset!, length: slice.length! };
}

/** Looks up a mint's decimals: parsed token accounts show amounts in their mint's units. */
export type MintDecimals = (mint: string) => number | undefined;

export function encodeAccount(
  account: AccountState,
  encoding: AccountEncoding,
  opts: { dataSlice?: DataSlice; mintDecimals: MintDecimals },
): UiAccount {
  const base = {
    lamports: Number(account.lamports),
    owner: account.owner,
    executable: account.executable,
    rentEpoch: Number(account.rentEpoch),
    space: account.data.length,
  };
  const { dataSlice } = opts;
  if (encoding === 'jsonParsed' && !dataSlice) {
    const parsed = parseTokenData(account, opts.mintDecimals);
    if (parsed) return { ...base, data: parsed };
  }
  const data = dataSlice
    ? account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length)
    : account.data;
  switch (encoding) {
    case 'binary':
    case 'base58':
      if (data.length > 128) {
        throw new RpcError(
          RpcErrorCode.invalidRequest,
          'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.',
        );
      }
      return {
        ...base,
        data: encoding === 'binary' ? bs58.encode(data) : [bs58.encode(data), 'base58'],
      };
    case 'base64':
    case 'base64+zstd':
    case 'jsonParsed':
      return { ...base, data: [Buffer.from(data).toString('base64'), 'base64'] };
  }
}

/** The `jsonParsed` form of SPL Token and Token-2022 accounts; other owners fall back to base64. */
function parseTokenData(
  account: AccountState,
  mintDecimals: MintDecimals,
): { program: string; parsed: unknown; space: number } | undefined {
  if (!isTokenProgram(account.owner)) return undefined;
  const program = programName(account.owner);
  const space = account.data.length;
  const withExtensions = program === 'spl-token-2022' && space > 165;
  const token = readTokenAccount(account.data);
  if (token) {
    const decimals = mintDecimals(token.mint);
    if (decimals === undefined) return undefined;
    const info: Record<string, unknown> = {
      isNative: token.isNative !== null,
      mint: token.mint,
      owner: token.owner,
      state: token.state,
      tokenAmount: uiTokenAmount(token.amount, decimals),
    };
    if (token.delegate) {
      info.delegate = token.delegate;
      info.delegatedAmount = uiTokenAmount(token.delegatedAmount, decimals);
    }
    if (token.isNative !== null) info.rentExemptReserve = uiTokenAmount(token.isNative, decimals);
    if (token.closeAuthority) info.closeAuthority = token.closeAuthority;
    if (withExtensions) info.extensions = readExtensions(account.data);
    return { program, space, parsed: { type: 'account', info } };
  }
  const mint = readMint(account.data);
  if (mint) {
    const info: Record<string, unknown> = {
      decimals: mint.decimals,
      freezeAuthority: mint.freezeAuthority,
      isInitialized: mint.isInitialized,
      mintAuthority: mint.mintAuthority,
      supply: mint.supply.toString(),
    };
    if (withExtensions) info.extensions = readExtensions(account.data);
    return { program, space, parsed: { type: 'mint', info } };
  }
  return undefined;
}
