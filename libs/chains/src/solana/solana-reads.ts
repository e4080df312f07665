import { PublicKey, type AccountInfo } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  getTokenGroupMemberState,
  getTokenGroupState,
  unpackAccount,
  unpackMint,
  type Mint,
} from '@solana/spl-token';
import type { SolanaNetworkDefinition } from '../networks/network-definition';
import type { SolanaAdapter } from './solana.adapter';
import { tokenAccountOf } from './token2022-instructions';

// Live reads of Token-2022 mints for the GET endpoints and the planner's checks.

export interface GroupState {
  size: bigint;
  maxSize: bigint;
}

export function mintOf(address: PublicKey, account: AccountInfo<Buffer>): Mint {
  return unpackMint(address, account, TOKEN_2022_PROGRAM_ID);
}

export function groupOf(mint: Mint): GroupState | null {
  const group = getTokenGroupState(mint);
  if (!group || group.size === undefined || group.maxSize === undefined) return null;
  return { size: group.size, maxSize: group.maxSize };
}

export function memberGroupOf(mint: Mint): string | null {
  return getTokenGroupMemberState(mint)?.group?.toBase58() ?? null;
}

/** A mint's supply and decimals; null when no Token-2022 mint is there. */
export async function readSolanaMint(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  address: string,
): Promise<Mint | null> {
  const key = new PublicKey(address);
  const [account] = await adapter.accounts(network, [key]);
  if (!account || !account.owner.equals(TOKEN_2022_PROGRAM_ID)) return null;
  return mintOf(key, account);
}

/** The amount an owner holds in its associated account of a mint (0 without one). */
export async function readSolanaTokenBalance(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  mint: string,
  owner: string,
): Promise<bigint> {
  const ata = tokenAccountOf(new PublicKey(mint), new PublicKey(owner));
  const [account] = await adapter.accounts(network, [ata]);
  return account ? unpackAccount(ata, account, TOKEN_2022_PROGRAM_ID).amount : 0n;
}

/**
 * The holder of an item (a supply-1 mint): checks the expected owner's associated account first
 * (one call), else asks for the mint's largest account. null when burned or held nowhere.
 */
export async function readSolanaItemHolder(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  item: string,
  expectedOwner: string,
): Promise<{ supply: bigint; holder: string | null }> {
  const mintKey = new PublicKey(item);
  const ata = tokenAccountOf(mintKey, new PublicKey(expectedOwner));
  const [mintAccount, held] = await adapter.accounts(network, [mintKey, ata]);
  if (!mintAccount) return { supply: 0n, holder: null };
  const supply = mintOf(mintKey, mintAccount).supply;
  if (supply === 0n) return { supply, holder: null };
  if (held && unpackAccount(ata, held, TOKEN_2022_PROGRAM_ID).amount > 0n) {
    return { supply, holder: expectedOwner };
  }
  const largest = await adapter.largestTokenAccount(network, mintKey);
  if (!largest) return { supply, holder: null };
  const [account] = await adapter.accounts(network, [largest]);
  if (!account) return { supply, holder: null };
  const token = unpackAccount(largest, account, TOKEN_2022_PROGRAM_ID);
  return { supply, holder: token.amount > 0n ? token.owner.toBase58() : null };
}
