import bs58 from 'bs58';
import { encodeAccount, parseAccountEncoding, parseDataSlice } from '../account.encoder';
import type { RpcMethod } from '../json-rpc';
import type { Ledger } from '../ledger';
import { RpcError } from '../rpc.errors';
import { configParam, pubkeyParam, requiredParam, asPubkey } from '../rpc-params.util';
import { isTokenProgram, readMint, readTokenAccount, uiTokenAmount } from '../token.layout';
import { mintDecimalsFrom, withContext } from './method.util';

const LARGEST_ACCOUNTS = 20;

/** SPL Token and Token-2022 reads: token accounts by owner, balances, supply. */
export function tokenMethods(ledger: Ledger): Record<string, RpcMethod> {
  const config = (params: unknown[], index: number) => configParam(params, index, ledger.slot);

  const mintOf = (address: string) => {
    const account = ledger.getAccount(address);
    if (!account) throw RpcError.invalidParams('Invalid param: could not find mint');
    const mint = isTokenProgram(account.owner) ? readMint(account.data) : undefined;
    if (!mint) throw RpcError.invalidParams('Invalid param: not a Token mint');
    return { mint, programId: account.owner };
  };

  return {
    getTokenAccountsByOwner: (params) => {
      const owner = pubkeyParam(params, 0, 'owner');
      const filter = requiredParam(params, 1, 'filter') as {
        mint?: unknown;
        programId?: unknown;
      } | null;
      const cfg = config(params, 2);
      const encoding = parseAccountEncoding(cfg.encoding, 'binary');
      const dataSlice = parseDataSlice(cfg.dataSlice);
      let programId: string;
      let mintBytes: Buffer | undefined;
      if (filter && typeof filter === 'object' && filter.mint !== undefined) {
        const mint = asPubkey(filter.mint);
        programId = mintOf(mint).programId;
        mintBytes = Buffer.from(bs58.decode(mint));
      } else if (filter && typeof filter === 'object' && filter.programId !== undefined) {
        programId = asPubkey(filter.programId);
        if (!isTokenProgram(programId))
          throw RpcError.invalidParams('Invalid param: unrecognized Token program id');
      } else {
        throw RpcError.invalidParams('Invalid params: filter must be { mint } or { programId }');
      }
      const ownerBytes = Buffer.from(bs58.decode(owner));
      const mintDecimals = mintDecimalsFrom(ledger);
      const value = ledger
        .getProgramAccounts(programId)
        .filter(({ account }) => {
          const data = account.data;
          if (!readTokenAccount(data)) return false;
          if (!ownerBytes.equals(data.subarray(32, 64))) return false;
          return !mintBytes || mintBytes.equals(data.subarray(0, 32));
        })
        .map(({ address, account }) => ({
          pubkey: address,
          account: encodeAccount(account, encoding, { dataSlice, mintDecimals }),
        }));
      return withContext(ledger, value);
    },
    getTokenAccountBalance: (params) => {
      const address = pubkeyParam(params, 0);
      config(params, 1);
      const account = ledger.getAccount(address);
      if (!account) throw RpcError.invalidParams('Invalid param: could not find account');
      const token = isTokenProgram(account.owner) ? readTokenAccount(account.data) : undefined;
      if (!token) throw RpcError.invalidParams('Invalid param: not a Token account');
      const { mint } = mintOf(token.mint);
      return withContext(ledger, uiTokenAmount(token.amount, mint.decimals));
    },
    getTokenSupply: (params) => {
      const address = pubkeyParam(params, 0, 'mint');
      config(params, 1);
      const { mint } = mintOf(address);
      return withContext(ledger, uiTokenAmount(mint.supply, mint.decimals));
    },
    getTokenLargestAccounts: (params) => {
      const address = pubkeyParam(params, 0, 'mint');
      config(params, 1);
      const { mint, programId } = mintOf(address);
      const mintBytes = Buffer.from(bs58.decode(address));
      const holders = ledger
        .getProgramAccounts(programId)
        .map(({ address: holder, account }) => ({ holder, token: readTokenAccount(account.data) }))
        .filter(({ token }) => token !== undefined && mintBytes.equals(bs58.decode(token.mint)))
        .sort((a, b) =>
          a.token!.amount < b.token!.amount ? 1 : a.token!.amount > b.token!.amount ? -1 : 0,
        )
        .slice(0, LARGEST_ACCOUNTS);
      return withContext(
        ledger,
        holders.map(({ holder, token }) => ({
          address: holder,
          ...uiTokenAmount(token!.amount, mint.decimals),
        })),
      );
    },
  };
}
