import type { Account } from 'litesvm/dist/internal';
import bs58 from 'bs58';
import type { ResolvedKeys } from './account-keys';
import type { TokenBalance } from './ledger.types';
import {
  readMintDecimals,
  readTokenAccount,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  uiTokenAmount,
} from './token.layout';
import type { WireTransaction } from './wire-transaction.decoder';

/** Balances of the SPL Token / Token-2022 accounts among a transaction's keys, as in `meta`. */
export function readTokenBalances(
  tx: WireTransaction,
  keys: ResolvedKeys,
  getAccount: (address: Uint8Array) => Account | null,
): TokenBalance[] {
  const programIndexes = new Set(tx.instructions.map((ix) => ix.programIdIndex));
  const balances: TokenBalance[] = [];
  const decimalsByMint = new Map<string, number | undefined>();
  keys.keyBytes.forEach((key, accountIndex) => {
    if (programIndexes.has(accountIndex)) return;
    const account = getAccount(key);
    if (!account || account.lamports() === 0n) return;
    const programId = tokenProgramOf(account.owner());
    if (!programId) return;
    const token = readTokenAccount(account.data());
    if (!token) return;
    if (!decimalsByMint.has(token.mint)) {
      const mint = getAccount(bs58.decode(token.mint));
      decimalsByMint.set(token.mint, mint ? readMintDecimals(mint.data()) : undefined);
    }
    const decimals = decimalsByMint.get(token.mint);
    if (decimals === undefined) return;
    balances.push({
      accountIndex,
      mint: token.mint,
      owner: token.owner,
      programId,
      uiTokenAmount: uiTokenAmount(token.amount, decimals),
    });
  });
  return balances;
}

const TOKEN_PROGRAM_BYTES = Buffer.from(bs58.decode(TOKEN_PROGRAM));
const TOKEN_2022_PROGRAM_BYTES = Buffer.from(bs58.decode(TOKEN_2022_PROGRAM));

function tokenProgramOf(owner: Uint8Array): string | undefined {
  if (TOKEN_PROGRAM_BYTES.equals(owner)) return TOKEN_PROGRAM;
  if (TOKEN_2022_PROGRAM_BYTES.equals(owner)) return TOKEN_2022_PROGRAM;
  return undefined;
}
