import { PublicKey, SystemProgram, VersionedTransaction } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, ExtensionType, getAccountLen } from '@solana/spl-token';
import type { AppError } from '@app/common';
import type { SolanaNetworkDefinition } from '../networks/network-definition';
import { insufficientFunds } from '../wallet-funds';
import type { SolanaAdapter } from './solana.adapter';
import type { RentOf } from './token2022-instructions';

/** The base fee of one signature, in lamports (priority fees come on top: "roughly"). */
const LAMPORTS_PER_SIGNATURE = 5_000n;
const SYSTEM = SystemProgram.programId.toBase58();
/** System instructions that move lamports out of an account: CreateAccount and Transfer. */
const CREATE_ACCOUNT = 0;
const TRANSFER = 2;
const ASSOCIATED_TOKEN = ASSOCIATED_TOKEN_PROGRAM_ID.toBase58();
/** A Token-2022 associated account of this service's mints: ImmutableOwner is its one extension. */
const TOKEN_ACCOUNT_LENGTH = getAccountLen([ExtensionType.ImmutableOwner]);

/**
 * Roughly what a transaction asks of its fee payer: a base fee per signature and the lamports
 * its System instructions move (the rent of the accounts it creates, transfers).
 */
export function lamportsNeeded(wire: Uint8Array): bigint {
  const message = VersionedTransaction.deserialize(wire).message;
  const keys = message.staticAccountKeys;
  let needed = LAMPORTS_PER_SIGNATURE * BigInt(message.header.numRequiredSignatures);
  for (const instruction of message.compiledInstructions) {
    if (keys[instruction.programIdIndex]?.toBase58() !== SYSTEM) continue;
    const data = Buffer.from(instruction.data);
    if (data.length < 12) continue;
    const kind = data.readUInt32LE(0);
    if (kind === CREATE_ACCOUNT || kind === TRANSFER) needed += data.readBigUInt64LE(4);
  }
  return needed;
}

/** Lamports per micro-lamport of compute-unit price times units. */
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

/**
 * The most a signed transaction can cost its fee payer: base fees, the priority fee at its
 * compute-unit price and limit, the lamports its System instructions move, and the rent of
 * every associated account it may create (as if none existed yet).
 */
export function mostLamportsAsked(
  wire: Uint8Array,
  fees: { computeUnitPriceMicroLamports: string; computeUnitLimit: string },
  rentOf: RentOf,
): bigint {
  const priority =
    (BigInt(fees.computeUnitPriceMicroLamports) * BigInt(fees.computeUnitLimit) +
      MICRO_LAMPORTS_PER_LAMPORT -
      1n) /
    MICRO_LAMPORTS_PER_LAMPORT;
  const associated = BigInt(associatedAccountsCreated(wire).length);
  return lamportsNeeded(wire) + priority + associated * rentOf(TOKEN_ACCOUNT_LENGTH);
}

/**
 * The associated token accounts a transaction creates where they are missing (Create and
 * CreateIdempotent): the payer funds each one's rent through the program, not through a System
 * instruction of its own. Distinct, in order.
 */
export function associatedAccountsCreated(wire: Uint8Array): PublicKey[] {
  const message = VersionedTransaction.deserialize(wire).message;
  const keys = message.staticAccountKeys;
  const created = new Map<string, PublicKey>();
  for (const instruction of message.compiledInstructions) {
    if (keys[instruction.programIdIndex]?.toBase58() !== ASSOCIATED_TOKEN) continue;
    const account = keys[instruction.accountKeyIndexes[1]];
    if (account) created.set(account.toBase58(), account);
  }
  return [...created.values()];
}

/**
 * The 409 for a fee payer the chain refused for lack of SOL: its balance, and what was asked,
 * with the rent of the associated accounts the transaction would create.
 */
export async function solanaInsufficientFunds(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  payer: string,
  wire: Uint8Array,
): Promise<AppError> {
  const associated = associatedAccountsCreated(wire);
  const [balance, existing, rentOf] = await Promise.all([
    adapter.getNativeBalance(network, payer),
    associated.length > 0 ? adapter.accounts(network, associated) : [],
    adapter.rentOf(network),
  ]);
  const missing = BigInt(existing.filter((account) => account === null).length);
  const needed = lamportsNeeded(wire) + missing * rentOf(TOKEN_ACCOUNT_LENGTH);
  return insufficientFunds({ network, address: payer, balance, needed });
}
