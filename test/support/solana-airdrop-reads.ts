import { PublicKey, type AccountInfo, type Connection } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  getAssociatedTokenAddressSync,
  unpackAccount,
  unpackMint,
  type Mint,
} from '@solana/spl-token';

/** getMultipleAccounts takes at most this many addresses. */
const ACCOUNTS_PER_CALL = 100;

/** Many accounts at once (confirmed), in the order asked; null where none exists. */
export async function accountsAt(
  connection: Connection,
  addresses: PublicKey[],
): Promise<(AccountInfo<Buffer> | null)[]> {
  const accounts: (AccountInfo<Buffer> | null)[] = [];
  for (let i = 0; i < addresses.length; i += ACCOUNTS_PER_CALL) {
    const chunk = addresses.slice(i, i + ACCOUNTS_PER_CALL);
    accounts.push(...(await connection.getMultipleAccountsInfo(chunk, 'confirmed')));
  }
  return accounts;
}

/** A Token-2022 owner's associated account for a mint. */
export function tokenAccountOf(mint: string, owner: string): PublicKey {
  return getAssociatedTokenAddressSync(
    new PublicKey(mint),
    new PublicKey(owner),
    true,
    TOKEN_2022_PROGRAM_ID,
  );
}

/**
 * What each owner holds of a Token-2022 mint in its associated account, read from the chain
 * (0 where it has none), in the order of `owners`.
 */
export async function tokenBalances(
  connection: Connection,
  mint: string,
  owners: string[],
): Promise<bigint[]> {
  const addresses = owners.map((owner) => tokenAccountOf(mint, owner));
  const accounts = await accountsAt(connection, addresses);
  return accounts.map((account, i) =>
    account ? unpackAccount(addresses[i], account, TOKEN_2022_PROGRAM_ID).amount : 0n,
  );
}

/** Token-2022 mints read from the chain, in the order asked (an error where one is missing). */
export async function mintsAt(connection: Connection, mints: string[]): Promise<Mint[]> {
  const addresses = mints.map((mint) => new PublicKey(mint));
  const accounts = await accountsAt(connection, addresses);
  return accounts.map((account, i) => {
    if (!account) throw new Error(`No mint at ${mints[i]}`);
    return unpackMint(addresses[i], account, TOKEN_2022_PROGRAM_ID);
  });
}
