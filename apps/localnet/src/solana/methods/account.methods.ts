import bs58 from 'bs58';
import { encodeAccount, parseAccountEncoding, parseDataSlice } from '../account.encoder';
import type { RpcMethod } from '../json-rpc';
import type { Ledger } from '../ledger';
import type { AccountState } from '../ledger.types';
import { RpcError } from '../rpc.errors';
import {
  asPubkey,
  describe,
  configParam,
  pubkeyParam,
  requiredParam,
  u64Param,
} from '../rpc-params.util';
import { mintDecimalsFrom, withContext } from './method.util';

const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_FILTERS = 4;
const MAX_MEMCMP_BYTES = 128;

type AccountFilter = (data: Uint8Array) => boolean;

/** Reading accounts and funding them. */
export function accountMethods(ledger: Ledger): Record<string, RpcMethod> {
  const config = (params: unknown[], index: number) => configParam(params, index, ledger.slot);
  const encoder = (cfg: Record<string, unknown>) => {
    const encoding = parseAccountEncoding(cfg.encoding, 'binary');
    const dataSlice = parseDataSlice(cfg.dataSlice);
    const mintDecimals = mintDecimalsFrom(ledger);
    return (account: AccountState) => encodeAccount(account, encoding, { dataSlice, mintDecimals });
  };

  return {
    getAccountInfo: (params) => {
      const address = pubkeyParam(params, 0);
      const encode = encoder(config(params, 1));
      const account = ledger.getAccount(address);
      return withContext(ledger, account ? encode(account) : null);
    },
    getMultipleAccounts: (params) => {
      const addresses = requiredParam(params, 0, 'pubkeys');
      if (!Array.isArray(addresses))
        throw RpcError.invalidParams('Invalid params: `pubkeys` must be an array.');
      if (addresses.length > MAX_MULTIPLE_ACCOUNTS) {
        throw RpcError.invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      }
      const keys = addresses.map(asPubkey);
      const encode = encoder(config(params, 1));
      return withContext(
        ledger,
        keys.map((key) => {
          const account = ledger.getAccount(key);
          return account ? encode(account) : null;
        }),
      );
    },
    getBalance: (params) => {
      const address = pubkeyParam(params, 0);
      config(params, 1);
      return withContext(ledger, Number(ledger.getBalance(address)));
    },
    getProgramAccounts: (params) => {
      const programId = pubkeyParam(params, 0, 'programId');
      const cfg = config(params, 1);
      const filters = parseFilters(cfg.filters);
      const encode = encoder(cfg);
      const value = ledger
        .getProgramAccounts(programId)
        .filter(({ account }) => filters.every((matches) => matches(account.data)))
        .map(({ address, account }) => ({ pubkey: address, account: encode(account) }));
      return cfg.withContext === true ? withContext(ledger, value) : value;
    },
    requestAirdrop: (params) => {
      const address = pubkeyParam(params, 0);
      const lamports = u64Param(params, 1, 'lamports');
      config(params, 2);
      try {
        return ledger.airdrop(address, BigInt(lamports));
      } catch (err) {
        throw RpcError.invalidParams(`airdrop request failed: ${(err as Error).message}`);
      }
    },
  };
}

export function parseFilters(value: unknown): AccountFilter[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw RpcError.invalidParams('Invalid params: `filters` must be an array.');
  if (value.length > MAX_FILTERS)
    throw RpcError.invalidParams(`Too many filters provided; max ${MAX_FILTERS}`);
  return value.map((filter: unknown): AccountFilter => {
    const { memcmp, dataSize } = (filter ?? {}) as { memcmp?: unknown; dataSize?: unknown };
    if (typeof dataSize === 'number' && Number.isInteger(dataSize) && dataSize >= 0) {
      return (data) => data.length === dataSize;
    }
    if (memcmp && typeof memcmp === 'object')
      return memcmpFilter(memcmp as Record<string, unknown>);
    throw RpcError.invalidParams(`Invalid params: unsupported filter ${JSON.stringify(filter)}`);
  });
}

function memcmpFilter({ offset, bytes, encoding }: Record<string, unknown>): AccountFilter {
  if (
    typeof offset !== 'number' ||
    !Number.isInteger(offset) ||
    offset < 0 ||
    typeof bytes !== 'string'
  ) {
    throw RpcError.invalidParams('Invalid params: memcmp needs { offset: number, bytes: string }');
  }
  let expected: Uint8Array;
  try {
    if (encoding === 'base64') expected = Buffer.from(bytes, 'base64');
    else if (encoding === undefined || encoding === 'base58') expected = bs58.decode(bytes);
    else throw new Error(`unknown encoding ${describe(encoding)}`);
  } catch (err) {
    throw RpcError.invalidParams(`Invalid param: memcmp bytes: ${(err as Error).message}`);
  }
  if (expected.length > MAX_MEMCMP_BYTES)
    throw RpcError.invalidParams('Invalid param: memcmp bytes too long');
  const wanted = Buffer.from(expected);
  return (data) =>
    data.length >= offset + wanted.length &&
    wanted.equals(data.subarray(offset, offset + wanted.length));
}
