/**
 * The bytes of the transactions the service signs: EIP-1559 (type 2) and legacy with EIP-155
 * replay protection (type 0), no value, no access list. They are the bytes ethers' Transaction
 * makes (evm-transaction-bytes.spec.ts compares them over random transactions), built from
 * Buffers: ethers' Transaction parses every hex field again each time it serializes, and in the
 * worker's CPU profile of 3,600 EVM mints (2026-11-29) building, hashing and serializing a
 * signed transaction with it took 0.33 ms a mint, a tenth of the worker's CPU; the signature
 * itself (libsecp256k1) 0.07 ms of it.
 */

export interface EvmTransactionFields {
  type: 0 | 2;
  chainId: bigint;
  nonce: bigint;
  gasLimit: bigint;
  /** Null for a deployment. */
  to: string | null;
  data: string;
  /** Type 0. */
  gasPrice?: bigint;
  /** Type 2. */
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/** A secp256k1 signature of the unsigned bytes' Keccak-256 digest (hex `r` and `s`). */
export interface EvmSignatureParts {
  r: string;
  s: string;
  yParity: 0 | 1;
}

const EMPTY = new Uint8Array(0);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

/** The bytes whose Keccak-256 digest is signed. */
export function unsignedTransactionBytes(tx: EvmTransactionFields): Uint8Array {
  if (tx.type === 2) return typed(2, [...eip1559Fields(tx), []]);
  return rlp([...legacyFields(tx), quantity(tx.chainId), EMPTY, EMPTY]);
}

/** The signed transaction as sent (eth_sendRawTransaction) and hashed for its id. */
export function signedTransactionBytes(
  tx: EvmTransactionFields,
  signature: EvmSignatureParts,
): Uint8Array {
  const r = quantity(BigInt(signature.r));
  const s = quantity(BigInt(signature.s));
  if (tx.type === 2) {
    return typed(2, [...eip1559Fields(tx), [], quantity(BigInt(signature.yParity)), r, s]);
  }
  const v = tx.chainId * 2n + 35n + BigInt(signature.yParity);
  return rlp([...legacyFields(tx), quantity(v), r, s]);
}

export function hexOf(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

function eip1559Fields(tx: EvmTransactionFields): Uint8Array[] {
  const tip = required(tx.maxPriorityFeePerGas, 'maxPriorityFeePerGas');
  const feeCap = required(tx.maxFeePerGas, 'maxFeePerGas');
  // Every node refuses it (and ethers would not serialize it).
  if (tip > feeCap) throw new Error(`A tip above its fee cap: ${tip} > ${feeCap}`);
  return [
    quantity(tx.chainId),
    quantity(tx.nonce),
    quantity(tip),
    quantity(feeCap),
    quantity(tx.gasLimit),
    recipient(tx.to),
    EMPTY, // value
    hexBytes(tx.data),
  ];
}

function legacyFields(tx: EvmTransactionFields): Uint8Array[] {
  return [
    quantity(tx.nonce),
    quantity(required(tx.gasPrice, 'gasPrice')),
    quantity(tx.gasLimit),
    recipient(tx.to),
    EMPTY, // value
    hexBytes(tx.data),
  ];
}

function required(value: bigint | undefined, name: string): bigint {
  if (value === undefined) throw new Error(`A transaction of this type needs ${name}`);
  return value;
}

function typed(type: number, fields: RlpItem[]): Uint8Array {
  const body = rlp(fields);
  const bytes = new Uint8Array(body.length + 1);
  bytes[0] = type;
  bytes.set(body, 1);
  return bytes;
}

function recipient(to: string | null): Uint8Array {
  if (to === null) return EMPTY;
  if (!ADDRESS.test(to)) throw new Error(`Not an address: ${to}`);
  return Buffer.from(to.slice(2), 'hex');
}

function hexBytes(data: string): Uint8Array {
  if (!HEX_DATA.test(data)) throw new Error('Transaction data is not hex bytes');
  return Buffer.from(data.slice(2), 'hex');
}

/** An unsigned integer as RLP takes it: big-endian, no leading zero byte (zero: no bytes). */
function quantity(value: bigint): Uint8Array {
  if (value < 0n) throw new Error(`A negative quantity: ${value}`);
  if (value === 0n) return EMPTY;
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
}

type RlpItem = Uint8Array | RlpItem[];

/** Recursive Length Prefix encoding (the Yellow Paper, appendix B). */
function rlp(item: RlpItem): Uint8Array {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0] < 0x80) return item;
    return Buffer.concat([lengthPrefix(item.length, 0x80), item]);
  }
  const body = Buffer.concat(item.map(rlp));
  return Buffer.concat([lengthPrefix(body.length, 0xc0), body]);
}

function lengthPrefix(length: number, offset: number): Uint8Array {
  if (length < 56) return Uint8Array.of(offset + length);
  const size = quantity(BigInt(length));
  return Buffer.concat([Uint8Array.of(offset + 55 + size.length), size]);
}
