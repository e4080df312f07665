import { PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  AuthorityType,
  ExtensionType,
  TOKEN_2022_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createBurnCheckedInstruction,
  createCloseAccountInstruction,
  createInitializeGroupMemberPointerInstruction,
  createInitializeGroupPointerInstruction,
  createInitializeMetadataPointerInstruction,
  createInitializeMint2Instruction,
  createMintToCheckedInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  getMintLen,
} from '@solana/spl-token';
import {
  createInitializeGroupInstruction,
  createInitializeMemberInstruction,
} from '@solana/spl-token-group';
import {
  createInitializeInstruction as createInitializeMetadataInstruction,
  createUpdateFieldInstruction,
  pack as packMetadata,
} from '@solana/spl-token-metadata';
import { findProgramAddress } from './program-address';
import { keyBytes } from './key-encodings';

/**
 * The Token-2022 instructions of each asset operation (contract, "Standards on chain"): a token
 * is a mint with MetadataPointer + TokenMetadata; a collection a 0-decimal mint with GroupPointer
 * + TokenGroup + metadata; an item a 0-decimal mint with GroupMemberPointer + TokenGroupMember +
 * metadata, supply 1, its mint authority removed in the same transaction. Pointers point at the
 * mint itself. Pure functions: no RPC, so the raw benchmark builds exactly what the service does.
 */

/** Token group max size when a collection has no max_supply: the largest u64. */
export const UNLIMITED_GROUP_SIZE = 2n ** 64n - 1n;
export const U64_MAX = 2n ** 64n - 1n;

export interface OnChainMetadata {
  name: string;
  symbol: string;
  uri: string;
  /** Extra key/value pairs (e.g. seller_fee_basis_points). */
  additional?: [string, string][];
}

/** Rent-exempt minimum for an account of this size (lamports). */
export type RentOf = (dataLength: number) => bigint;

/** The associated token account of an owner for a Token-2022 mint (owners off curve allowed). */
export function tokenAccountOf(mint: PublicKey, owner: PublicKey): PublicKey {
  return tokenAccountAndBump(mint, owner).address;
}

/**
 * The associated token account and the bump seed its derivation settled on: the derivation
 * tries seeds from 255 down, and the associated-token program, which derives it again, pays
 * compute for each seed it tries.
 */
export function tokenAccountAndBump(
  mint: PublicKey,
  owner: PublicKey,
): { address: PublicKey; bump: number } {
  return findProgramAddress(
    [owner.toBuffer(), keyBytes(TOKEN_2022_PROGRAM_ID), keyBytes(mint)],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  );
}

/** The size a mint reaches once every extension is in: it is funded for that size up front. */
export function finalMintLength(
  fixed: ExtensionType[],
  mint: PublicKey,
  authority: PublicKey,
  metadata: OnChainMetadata,
): number {
  return getMintLen(fixed, {
    [ExtensionType.TokenMetadata]: metadataLength(mint, authority, metadata),
  });
}

function metadataLength(mint: PublicKey, authority: PublicKey, metadata: OnChainMetadata): number {
  return packMetadata({
    mint,
    updateAuthority: authority,
    name: metadata.name,
    symbol: metadata.symbol,
    uri: metadata.uri,
    additionalMetadata: metadata.additional ?? [],
  }).length;
}

/**
 * Creates the mint account with room for the extensions initialized before InitializeMint (the
 * pointers) and lamports for its final size: TokenMetadata and TokenGroup(Member) realloc it.
 */
function createMintAccount(
  payer: PublicKey,
  mint: PublicKey,
  pointers: ExtensionType[],
  finalLength: number,
  rentOf: RentOf,
): TransactionInstruction {
  return SystemProgram.createAccount({
    fromPubkey: payer,
    newAccountPubkey: mint,
    space: getMintLen(pointers),
    lamports: Number(rentOf(finalLength)),
    programId: TOKEN_2022_PROGRAM_ID,
  });
}

function metadataInstructions(
  mint: PublicKey,
  authority: PublicKey,
  metadata: OnChainMetadata,
): TransactionInstruction[] {
  const common = { programId: TOKEN_2022_PROGRAM_ID, metadata: mint, updateAuthority: authority };
  return [
    createInitializeMetadataInstruction({
      ...common,
      mint,
      mintAuthority: authority,
      name: metadata.name,
      symbol: metadata.symbol,
      uri: metadata.uri,
    }),
    ...(metadata.additional ?? []).map(([field, value]) =>
      createUpdateFieldInstruction({ ...common, field, value }),
    ),
  ];
}

/** A fungible token: the authority holds the mint and metadata authority and the first supply. */
export function tokenCreateInstructions(args: {
  authority: PublicKey;
  mint: PublicKey;
  decimals: number;
  initialSupply: bigint;
  metadata: OnChainMetadata;
  rentOf: RentOf;
}): TransactionInstruction[] {
  const { authority, mint, decimals } = args;
  const pointers = [ExtensionType.MetadataPointer];
  const length = finalMintLength(pointers, mint, authority, args.metadata);
  const ata = tokenAccountOf(mint, authority);
  return [
    createMintAccount(authority, mint, pointers, length, args.rentOf),
    createInitializeMetadataPointerInstruction(mint, authority, mint, TOKEN_2022_PROGRAM_ID),
    createInitializeMint2Instruction(mint, decimals, authority, null, TOKEN_2022_PROGRAM_ID),
    ...metadataInstructions(mint, authority, args.metadata),
    createAssociatedTokenAccountIdempotentInstruction(
      authority,
      ata,
      authority,
      mint,
      TOKEN_2022_PROGRAM_ID,
    ),
    createMintToCheckedInstruction(
      mint,
      ata,
      authority,
      args.initialSupply,
      decimals,
      [],
      TOKEN_2022_PROGRAM_ID,
    ),
  ];
}

/** A collection: a 0-decimal mint that is its own token group, with metadata. */
export function collectionCreateInstructions(args: {
  authority: PublicKey;
  mint: PublicKey;
  maxSize: bigint;
  metadata: OnChainMetadata;
  rentOf: RentOf;
}): TransactionInstruction[] {
  const { authority, mint } = args;
  const pointers = [ExtensionType.GroupPointer, ExtensionType.MetadataPointer];
  const length = finalMintLength(
    [...pointers, ExtensionType.TokenGroup],
    mint,
    authority,
    args.metadata,
  );
  return [
    createMintAccount(authority, mint, pointers, length, args.rentOf),
    createInitializeGroupPointerInstruction(mint, authority, mint, TOKEN_2022_PROGRAM_ID),
    createInitializeMetadataPointerInstruction(mint, authority, mint, TOKEN_2022_PROGRAM_ID),
    createInitializeMint2Instruction(mint, 0, authority, null, TOKEN_2022_PROGRAM_ID),
    ...metadataInstructions(mint, authority, args.metadata),
    createInitializeGroupInstruction({
      programId: TOKEN_2022_PROGRAM_ID,
      group: mint,
      mint,
      mintAuthority: authority,
      updateAuthority: authority,
      maxSize: args.maxSize,
    }),
  ];
}

/**
 * An item: a 0-decimal mint, member of the collection's group, with metadata; one unit minted to
 * the recipient's associated account (created if missing), then the mint authority removed so
 * the supply stays 1. The authority signs as payer, mint authority and group update authority.
 */
export function itemMintInstructions(args: {
  authority: PublicKey;
  collection: PublicKey;
  item: PublicKey;
  recipient: PublicKey;
  metadata: OnChainMetadata;
  rentOf: RentOf;
}): TransactionInstruction[] {
  const { authority, item } = args;
  const pointers = [ExtensionType.GroupMemberPointer, ExtensionType.MetadataPointer];
  const length = finalMintLength(
    [...pointers, ExtensionType.TokenGroupMember],
    item,
    authority,
    args.metadata,
  );
  const ata = tokenAccountOf(item, args.recipient);
  return [
    createMintAccount(authority, item, pointers, length, args.rentOf),
    createInitializeGroupMemberPointerInstruction(item, authority, item, TOKEN_2022_PROGRAM_ID),
    createInitializeMetadataPointerInstruction(item, authority, item, TOKEN_2022_PROGRAM_ID),
    createInitializeMint2Instruction(item, 0, authority, null, TOKEN_2022_PROGRAM_ID),
    ...metadataInstructions(item, authority, args.metadata),
    createInitializeMemberInstruction({
      programId: TOKEN_2022_PROGRAM_ID,
      member: item,
      memberMint: item,
      memberMintAuthority: authority,
      group: args.collection,
      groupUpdateAuthority: authority,
    }),
    createAssociatedTokenAccountIdempotentInstruction(
      authority,
      ata,
      args.recipient,
      item,
      TOKEN_2022_PROGRAM_ID,
    ),
    createMintToCheckedInstruction(item, ata, authority, 1n, 0, [], TOKEN_2022_PROGRAM_ID),
    createSetAuthorityInstruction(
      item,
      authority,
      AuthorityType.MintTokens,
      null,
      [],
      TOKEN_2022_PROGRAM_ID,
    ),
  ];
}

/** More supply, to the recipient's associated account (created if missing). */
export function tokenMintInstructions(args: {
  authority: PublicKey;
  mint: PublicKey;
  recipient: PublicKey;
  amount: bigint;
  decimals: number;
}): TransactionInstruction[] {
  return mintToAccountInstructions(args, tokenAccountOf(args.mint, args.recipient));
}

export interface TokenMintBatch {
  instructions: TransactionInstruction[];
  /** Each recipient's associated-account bump seed, in order (what its creation costs). */
  bumps: number[];
}

/**
 * Several mints of one token in one transaction: for each recipient in order, what
 * `tokenMintInstructions` does for one (its associated account created if missing, then
 * mintToChecked). A recipient listed twice gets two mints; the second create is a no-op.
 */
export function tokenMintBatchInstructions(args: {
  authority: PublicKey;
  mint: PublicKey;
  mints: { recipient: PublicKey; amount: bigint }[];
  decimals: number;
}): TokenMintBatch {
  const { authority, mint, decimals } = args;
  const instructions: TransactionInstruction[] = [];
  const bumps: number[] = [];
  for (const { recipient, amount } of args.mints) {
    const account = tokenAccountAndBump(mint, recipient);
    instructions.push(
      ...mintToAccountInstructions(
        { authority, mint, recipient, amount, decimals },
        account.address,
      ),
    );
    bumps.push(account.bump);
  }
  return { instructions, bumps };
}

function mintToAccountInstructions(
  args: {
    authority: PublicKey;
    mint: PublicKey;
    recipient: PublicKey;
    amount: bigint;
    decimals: number;
  },
  ata: PublicKey,
): TransactionInstruction[] {
  return [
    createAssociatedTokenAccountIdempotentInstruction(
      args.authority,
      ata,
      args.recipient,
      args.mint,
      TOKEN_2022_PROGRAM_ID,
    ),
    createMintToCheckedInstruction(
      args.mint,
      ata,
      args.authority,
      args.amount,
      args.decimals,
      [],
      TOKEN_2022_PROGRAM_ID,
    ),
  ];
}

/** Burns from the owner's associated account; `close` also reclaims the emptied account's rent. */
export function burnInstructions(args: {
  owner: PublicKey;
  mint: PublicKey;
  amount: bigint;
  decimals: number;
  close?: boolean;
}): TransactionInstruction[] {
  const ata = tokenAccountOf(args.mint, args.owner);
  return [
    createBurnCheckedInstruction(
      ata,
      args.mint,
      args.owner,
      args.amount,
      args.decimals,
      [],
      TOKEN_2022_PROGRAM_ID,
    ),
    ...(args.close
      ? [createCloseAccountInstruction(ata, args.owner, args.owner, [], TOKEN_2022_PROGRAM_ID)]
      : []),
  ];
}

/**
 * transferChecked from the owner's associated account to the recipient's (created when missing,
 * paid by the owner); `close` reclaims the owner's emptied account (NFT items).
 */
export function transferInstructions(args: {
  owner: PublicKey;
  mint: PublicKey;
  recipient: PublicKey;
  amount: bigint;
  decimals: number;
  close?: boolean;
}): TransactionInstruction[] {
  const source = tokenAccountOf(args.mint, args.owner);
  const destination = tokenAccountOf(args.mint, args.recipient);
  return [
    createAssociatedTokenAccountIdempotentInstruction(
      args.owner,
      destination,
      args.recipient,
      args.mint,
      TOKEN_2022_PROGRAM_ID,
    ),
    createTransferCheckedInstruction(
      source,
      args.mint,
      destination,
      args.owner,
      args.amount,
      args.decimals,
      [],
      TOKEN_2022_PROGRAM_ID,
    ),
    ...(args.close
      ? [createCloseAccountInstruction(source, args.owner, args.owner, [], TOKEN_2022_PROGRAM_ID)]
      : []),
  ];
}
