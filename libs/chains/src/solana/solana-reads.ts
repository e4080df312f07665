import { PublicKey, type AccountInfo } from '@solana/web3.js';
import {
  ExtensionType,
  TOKEN_2022_PROGRAM_ID,
  getExtensionData,
  getTokenGroupMemberState,
  getTokenGroupState,
  unpackAccount,
  unpackMint,
  type Mint,
} from '@solana/spl-token';
import { unpack as unpackMetadata } from '@solana/spl-token-metadata';
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

/** The TokenMetadata a mint carries in itself (name, symbol, uri), if any. */
export function metadataOf(mint: Mint): { name: string; symbol: string; uri: string } | null {
  const data = getExtensionData(ExtensionType.TokenMetadata, mint.tlvData);
  if (!data) return null;
  const { name, symbol, uri } = unpackMetadata(data);
  return { name, symbol, uri };
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
 * An item (a supply-1 mint) and its holder: checks the expected owner's associated account first
 * (one call), else asks for the mint's largest account. holder null when burned or held nowhere.
 */
export async function readSolanaItemHolder(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  item: string,
  expectedOwner: string,
): Promise<{ mint: Mint | null; holder: string | null }> {
  const mintKey = new PublicKey(item);
  const ata = tokenAccountOf(mintKey, new PublicKey(expectedOwner));
  const [mintAccount, held] = await adapter.accounts(network, [mintKey, ata]);
  if (!mintAccount) return { mint: null, holder: null };
  const mint = mintOf(mintKey, mintAccount);
  if (mint.supply === 0n) return { mint, holder: null };
  if (held && unpackAccount(ata, held, TOKEN_2022_PROGRAM_ID).amount > 0n) {
    return { mint, holder: expectedOwner };
  }
  const largest = await adapter.largestTokenAccount(network, mintKey);
  if (!largest) return { mint, holder: null };
  const [account] = await adapter.accounts(network, [largest]);
  if (!account) return { mint, holder: null };
  const token = unpackAccount(largest, account, TOKEN_2022_PROGRAM_ID);
  return { mint, holder: token.amount > 0n ? token.owner.toBase58() : null };
}
