import { ComputeBudgetProgram, type PublicKey, type TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import { shortVec } from './ed25519-signer';
import { base58Of, encodingOf } from './key-encodings';

/**
 * A legacy transaction message, compiled once. web3.js v1's `compileMessage()` costs ~1 ms for
 * an NFT mint (base58 round trips, locale-aware sorting) and `serialize()` another ~0.4 ms; this
 * builds the same wire layout in one pass over buffers. The compute-unit limit can then be set
 * in place, so simulation (to size it) and signing share one compilation.
 */
export interface CompiledMessage {
  bytes: Buffer;
  /** base58 addresses that must sign, in signature order (the fee payer first). */
  signers: string[];
  /** The program each instruction calls, by instruction index. */
  programs: string[];
  /** Byte offset of the u32 of a leading SetComputeUnitLimit instruction, when there is one. */
  computeUnitLimitOffset: number | null;
}

interface AccountEntry {
  key: Buffer;
  signer: boolean;
  writable: boolean;
}

const COMPUTE_BUDGET = ComputeBudgetProgram.programId.toBuffer().toString('hex');
const SET_COMPUTE_UNIT_LIMIT = 2;

export function compileLegacyMessage(
  payer: PublicKey,
  blockhash: string,
  instructions: TransactionInstruction[],
): CompiledMessage {
  const entries = new Map<string, AccountEntry>();
  const note = (key: PublicKey, signer: boolean, writable: boolean): void => {
    const { bytes, hex: id } = encodingOf(key);
    const entry = entries.get(id);
    if (entry) {
      entry.signer ||= signer;
      entry.writable ||= writable;
    } else {
      entries.set(id, { key: bytes, signer, writable });
    }
  };
  note(payer, true, true);
  for (const ix of instructions) {
    for (const meta of ix.keys) note(meta.pubkey, meta.isSigner, meta.isWritable);
    note(ix.programId, false, false);
  }

  // Signers first (writable, then read-only), then the rest (writable, then read-only); the
  // payer stays first. Within a group, the order of first use.
  const all = [...entries.values()];
  const ordered = [
    ...all.filter((e) => e.signer && e.writable),
    ...all.filter((e) => e.signer && !e.writable),
    ...all.filter((e) => !e.signer && e.writable),
    ...all.filter((e) => !e.signer && !e.writable),
  ];
  const index = new Map(ordered.map((entry, i) => [entry.key.toString('hex'), i]));
  if (ordered.length > 256) throw new Error('Too many accounts for one transaction');
  const signerCount = ordered.filter((e) => e.signer).length;

  const parts: Buffer[] = [
    Buffer.from([
      signerCount,
      ordered.filter((e) => e.signer && !e.writable).length,
      ordered.filter((e) => !e.signer && !e.writable).length,
    ]),
    shortVec(ordered.length),
    ...ordered.map((entry) => entry.key),
    Buffer.from(bs58.decode(blockhash)),
    shortVec(instructions.length),
  ];
  let offset = parts.reduce((sum, part) => sum + part.length, 0);
  let computeUnitLimitOffset: number | null = null;
  for (const [position, ix] of instructions.entries()) {
    const program = encodingOf(ix.programId).hex;
    const head = Buffer.concat([
      Buffer.from([index.get(program)!]),
      shortVec(ix.keys.length),
      Buffer.from(ix.keys.map((meta) => index.get(encodingOf(meta.pubkey).hex)!)),
      shortVec(ix.data.length),
    ]);
    if (
      position === 0 &&
      program === COMPUTE_BUDGET &&
      ix.data.length === 5 &&
      ix.data[0] === SET_COMPUTE_UNIT_LIMIT
    ) {
      computeUnitLimitOffset = offset + head.length + 1;
    }
    parts.push(head, ix.data);
    offset += head.length + ix.data.length;
  }
  return {
    bytes: Buffer.concat(parts),
    signers: ordered.slice(0, signerCount).map((entry) => bs58.encode(entry.key)),
    programs: instructions.map((ix) => base58Of(ix.programId)),
    computeUnitLimitOffset,
  };
}

/** The same message with another compute-unit limit (its leading SetComputeUnitLimit). */
export function withComputeUnitLimit(message: CompiledMessage, units: number): CompiledMessage {
  if (message.computeUnitLimitOffset === null) {
    throw new Error('The message does not start with SetComputeUnitLimit');
  }
  const bytes = Buffer.from(message.bytes);
  bytes.writeUInt32LE(units, message.computeUnitLimitOffset);
  return { ...message, bytes };
}

/** The addresses that signed a wire transaction (legacy or v0), fee payer first. */
export function wireSigners(wire: Buffer): string[] {
  let offset = 0;
  const readShortVec = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = wire[offset++];
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  const signatures = readShortVec();
  offset += 64 * signatures;
  if (wire[offset] & 0x80) offset++; // a versioned message's prefix
  const required = wire[offset];
  offset += 3;
  const keys = readShortVec();
  const signers: string[] = [];
  for (let i = 0; i < Math.min(required, keys); i++) {
    signers.push(bs58.encode(wire.subarray(offset + 32 * i, offset + 32 * (i + 1))));
  }
  return signers;
}
