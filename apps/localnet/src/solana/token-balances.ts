import type { LiteSvm } from 'litesvm/dist/internal';
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

/** What `meta` shows of a transaction's accounts at one moment: lamports and token balances. */
export interface AccountBalances {
  lamports: bigint[];
  tokens: TokenBalance[];
}

/**
 * The lamports of every account of a transaction and the balances of its SPL Token / Token-2022
 * accounts. An account is copied out of litesvm (`getAccount`, about ten times the cost of
 * `getBalance`) only where it may be a token account: not a program the transaction calls, and
 * holding lamports (most keys of a token airdrop's transaction are recipients with no account).
 */
export function readBalances(
  tx: WireTransaction,
  keys: ResolvedKeys,
  svm: Pick<LiteSvm, 'getAccount' | 'getBalance'>,
): AccountBalances {
  const programIndexes = new Set(tx.instructions.map((ix) => ix.programIdIndex));
  const lamports: bigint[] = [];
  const tokens: TokenBalance[] = [];
  const decimalsByMint = new Map<string, number | undefined>();
  keys.keyBytes.forEach((key, accountIndex) => {
    const held = svm.getBalance(key) ?? 0n;
    lamports.push(held);
    if (held === 0n || programIndexes.has(accountIndex)) return;
    const account = svm.getAccount(key);
    if (!account) return;
    const programId = tokenProgramOf(account.owner());
    if (!programId) return;
    const data = account.data();
    const token = readTokenAccount(data);
    if (!token) return;
    if (!decimalsByMint.has(token.mint)) {
      const mint = svm.getAccount(data.subarray(0, 32));
      decimalsByMint.set(token.mint, mint ? readMintDecimals(mint.data()) : undefined);
    }
    const decimals = decimalsByMint.get(token.mint);
    if (decimals === undefined) return;
    tokens.push({
      accountIndex,
      mint: token.mint,
      owner: token.owner,
      programId,
      uiTokenAmount: uiTokenAmount(token.amount, decimals),
    });
  });
  return { lamports, tokens };
}

const TOKEN_PROGRAM_BYTES = Buffer.from(bs58.decode(TOKEN_PROGRAM));
const TOKEN_2022_PROGRAM_BYTES = Buffer.from(bs58.decode(TOKEN_2022_PROGRAM));

function tokenProgramOf(owner: Uint8Array): string | undefined {
  if (TOKEN_PROGRAM_BYTES.equals(owner)) return TOKEN_PROGRAM;
  if (TOKEN_2022_PROGRAM_BYTES.equals(owner)) return TOKEN_2022_PROGRAM;
  return undefined;
}
