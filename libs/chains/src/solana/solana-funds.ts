import { SystemProgram, VersionedTransaction } from '@solana/web3.js';
import type { AppError } from '@app/common';
import type { SolanaNetworkDefinition } from '../networks/network-definition';
import { insufficientFunds } from '../wallet-funds';
import type { SolanaAdapter } from './solana.adapter';

/** The base fee of one signature, in lamports (priority fees come on top: "roughly"). */
const LAMPORTS_PER_SIGNATURE = 5_000n;
const SYSTEM = SystemProgram.programId.toBase58();
/** System instructions that move lamports out of an account: CreateAccount and Transfer. */
const CREATE_ACCOUNT = 0;
const TRANSFER = 2;

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

/** The 409 for a fee payer the chain refused for lack of SOL: its balance, what was asked. */
export async function solanaInsufficientFunds(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  payer: string,
  wire: Uint8Array,
): Promise<AppError> {
  const balance = await adapter.getNativeBalance(network, payer);
  return insufficientFunds({ network, address: payer, balance, needed: lamportsNeeded(wire) });
}
