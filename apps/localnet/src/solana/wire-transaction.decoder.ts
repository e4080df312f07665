import bs58 from 'bs58';
import { RpcError, RpcErrorCode } from './rpc.errors';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const MEMO_PROGRAMS = new Set([
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
]);

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface WireInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface AddressTableLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

/** A signed transaction as received on the wire. */
export interface WireTransaction {
  bytes: Uint8Array;
  signature: string;
  signatures: string[];
  version: 'legacy' | 0;
  header: MessageHeader;
  staticAccounts: string[];
  /** The same addresses as bytes, as the runtime reads accounts (views into `bytes`). */
  staticAccountBytes: Uint8Array[];
  recentBlockhash: string;
  instructions: WireInstruction[];
  addressTableLookups: AddressTableLookup[];
}

/*
 * The wire format read by hand: compact-u16 lengths, fixed-size addresses and signatures, byte
 * arrays. @solana/kit's generic codecs did the same at 0.18 ms a 25-account transaction (0.8 s
 * of the local validator's 7 s in `bench:airdrop`'s Solana run, profiled 2026-11-27), and kit's
 * own transaction decoders also turn every address into base58 through BigInt arithmetic. Here
 * addresses stay bytes until `addressText`, which uses bs58 and caches.
 */
const NO_SIGNATURE = bs58.encode(new Uint8Array(64));

class WireReader {
  offset: number;

  constructor(
    private readonly bytes: Uint8Array,
    offset = 0,
  ) {
    this.offset = offset;
  }

  get done(): boolean {
    return this.offset === this.bytes.length;
  }

  u8(): number {
    if (this.offset >= this.bytes.length) throw new Error('unexpected end of input');
    return this.bytes[this.offset++];
  }

  /** Solana's compact-u16: 7 bits a byte, low first, at most three bytes. */
  shortU16(): number {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const byte = this.u8();
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) {
        if (value > 0xffff) throw new Error('compact-u16 out of range');
        return value;
      }
    }
    throw new Error('compact-u16 longer than three bytes');
  }

  take(length: number): Uint8Array {
    const end = this.offset + length;
    if (end > this.bytes.length) throw new Error('unexpected end of input');
    const slice = this.bytes.subarray(this.offset, end);
    this.offset = end;
    return slice;
  }

  list<T>(item: () => T): T[] {
    const count = this.shortU16();
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(item());
    return items;
  }

  indexes(): number[] {
    return Array.from(this.take(this.shortU16()));
  }
}

const ADDRESS_CACHE_SIZE = 50_000;
const addressCache = new Map<string, string>();

function addressText(bytes: Uint8Array): string {
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let text = addressCache.get(key);
  if (text === undefined) {
    text = bs58.encode(bytes);
    if (addressCache.size >= ADDRESS_CACHE_SIZE) addressCache.clear();
    addressCache.set(key, text);
  }
  return text;
}

export type WireEncoding = 'base58' | 'base64';

export function decodeWireTransaction(encoded: string, encoding: WireEncoding): WireTransaction {
  const bytes = encoding === 'base64' ? Buffer.from(encoded, 'base64') : decodeBase58(encoded);
  if (bytes.length === 0) throw RpcError.invalidParams('invalid transaction: empty');
  if (bytes.length > 1232) {
    throw RpcError.invalidParams(
      `${encoding} encoded solana_transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: 1232 bytes)`,
    );
  }
  try {
    return decodeBytes(bytes);
  } catch (err) {
    if (err instanceof RpcError) throw err;
    throw RpcError.invalidParams(
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(err as Error).message}`,
    );
  }
}

export function decodeMessageBytes(
  bytes: Uint8Array,
): Omit<WireTransaction, 'bytes' | 'signature' | 'signatures'> {
  const versioned = (bytes[0] & 0x80) !== 0;
  const version = versioned ? bytes[0] & 0x7f : 'legacy';
  if (version !== 'legacy' && version !== 0) {
    throw new RpcError(
      RpcErrorCode.unsupportedTransactionVersion,
      `Transaction version (${version}) is not supported`,
    );
  }
  const reader = new WireReader(bytes, versioned ? 1 : 0);
  const header: MessageHeader = {
    numRequiredSignatures: reader.u8(),
    numReadonlySignedAccounts: reader.u8(),
    numReadonlyUnsignedAccounts: reader.u8(),
  };
  const staticAccountBytes = reader.list(() => reader.take(32));
  const recentBlockhash = addressText(reader.take(32));
  const instructions = reader.list((): WireInstruction => ({
    programIdIndex: reader.u8(),
    accounts: reader.indexes(),
    data: reader.take(reader.shortU16()),
  }));
  const addressTableLookups =
    version === 0
      ? reader.list((): AddressTableLookup => ({
          accountKey: addressText(reader.take(32)),
          writableIndexes: reader.indexes(),
          readonlyIndexes: reader.indexes(),
        }))
      : [];
  if (!reader.done) throw new Error('trailing bytes after the message');
  return {
    version,
    header,
    staticAccounts: staticAccountBytes.map(addressText),
    staticAccountBytes,
    recentBlockhash,
    instructions,
    addressTableLookups,
  };
}

export function decodeBytes(bytes: Uint8Array): WireTransaction {
  const reader = new WireReader(bytes);
  const rawSignatures = reader.list(() => reader.take(64));
  const message = decodeMessageBytes(bytes.subarray(reader.offset));
  const signatures = rawSignatures.map((sig) =>
    sig.some((b) => b !== 0) ? bs58.encode(sig) : NO_SIGNATURE,
  );
  if (signatures.length !== message.header.numRequiredSignatures || signatures.length === 0) {
    throw new RpcError(
      RpcErrorCode.transactionSignatureLenMismatch,
      'Transaction signature length mismatch',
    );
  }
  return { bytes, signature: signatures[0], signatures, ...message };
}

function decodeBase58(encoded: string): Uint8Array {
  if (encoded.length > 1683) {
    throw RpcError.invalidParams(
      `base58 encoded solana_transaction::versioned::VersionedTransaction too large: ${encoded.length} bytes (max: encoded/raw 1683/1232)`,
    );
  }
  try {
    return bs58.decode(encoded);
  } catch {
    throw RpcError.invalidParams('invalid base58 encoding: InvalidCharacter');
  }
}

export function isWritable(
  tx: Pick<WireTransaction, 'header' | 'staticAccounts'>,
  index: number,
): boolean {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } =
    tx.header;
  if (index < numRequiredSignatures)
    return index < numRequiredSignatures - numReadonlySignedAccounts;
  if (index < tx.staticAccounts.length)
    return index < tx.staticAccounts.length - numReadonlyUnsignedAccounts;
  return false;
}

export interface ComputeBudgetSettings {
  unitLimit: number | undefined;
  microLamportsPerUnit: bigint;
}

export function readComputeBudget(
  tx: Pick<WireTransaction, 'staticAccounts' | 'instructions'>,
): ComputeBudgetSettings {
  let unitLimit: number | undefined;
  let microLamportsPerUnit = 0n;
  for (const ix of tx.instructions) {
    if (tx.staticAccounts[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM) continue;
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === 2 && ix.data.length >= 5) unitLimit = view.getUint32(1, true);
    if (ix.data[0] === 3 && ix.data.length >= 9) microLamportsPerUnit = view.getBigUint64(1, true);
  }
  return { unitLimit, microLamportsPerUnit };
}

const LAMPORTS_PER_SIGNATURE = 5000n;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_UNITS = 1_400_000;

/**
 * The fee the runtime charges: 5,000 lamports per signature plus the priority fee. litesvm does not
 * report it; without an explicit unit limit the priority fee uses 200k units per instruction, as
 * older validators did.
 */
export function computeFee(
  tx: Pick<WireTransaction, 'header' | 'staticAccounts' | 'instructions'>,
): bigint {
  const base = LAMPORTS_PER_SIGNATURE * BigInt(tx.header.numRequiredSignatures);
  const budget = readComputeBudget(tx);
  if (budget.microLamportsPerUnit === 0n) return base;
  const nonBudget = tx.instructions.filter(
    (ix) => tx.staticAccounts[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM,
  ).length;
  const units = BigInt(
    budget.unitLimit ?? Math.min(MAX_UNITS, nonBudget * DEFAULT_UNITS_PER_INSTRUCTION),
  );
  return base + (budget.microLamportsPerUnit * units + 999_999n) / 1_000_000n;
}

/**
 * The memos a transaction carries, as getSignaturesForAddress shows them: `[length] text` per
 * memo instruction, joined by `; `, or null without one.
 */
export function readMemos(
  tx: Pick<WireTransaction, 'staticAccounts' | 'instructions'>,
): string | null {
  const memos = tx.instructions
    .filter((ix) => MEMO_PROGRAMS.has(tx.staticAccounts[ix.programIdIndex]))
    .map((ix) => `[${ix.data.length}] ${Buffer.from(ix.data).toString('utf8')}`);
  return memos.length ? memos.join('; ') : null;
}
