import { createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { Message } from '@solana/web3.js';
import bs58 from 'bs58';
import type { SolanaKey } from '../signers/wallet-keys';

/**
 * Solana signatures with node:crypto's ed25519 (~0.04 ms each) instead of web3.js v1's
 * JavaScript ed25519 (1.4-3.5 ms). Deterministic ed25519: the bytes equal web3.js's.
 */

/** A Solana signer held as a node:crypto key. */
export interface Ed25519Signer {
  /** base58 public key. */
  readonly address: string;
  readonly key: KeyObject;
}

/**
 * A signer from a Solana secret: the 32-byte seed, or the 64-byte secret key (seed || public
 * key) that web3.js and the wallets use.
 *
 * The KeyObject is imported from the seed as a JWK (`d`) rather than as PKCS#8 DER: both give
 * the same key, but OpenSSL 3's DER decoder costs ~0.6 ms per import here and the JWK path
 * ~0.05 ms, and a key is opened for every operation. `ed25519KeyFromPkcs8` is kept for callers
 * (and tests) that want the DER route.
 */
export function ed25519Signer(secret: Uint8Array): Ed25519Signer {
  const seed = seedOf(secret);
  const key = createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(seed).toString('base64url'), x: '' },
    format: 'jwk',
  });
  const publicKey = publicKeyOf(key);
  if (secret.length === 64 && !publicKey.equals(Buffer.from(secret.subarray(32)))) {
    throw new Error('The secret key does not match its public key');
  }
  return { address: bs58.encode(publicKey), key };
}

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The same KeyObject through PKCS#8 DER (prefix || 32-byte seed). */
export function ed25519KeyFromPkcs8(secret: Uint8Array): KeyObject {
  const der = Buffer.concat([PKCS8_ED25519_PREFIX, seedOf(secret)]);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

/** A fresh 32-byte seed: any 32 random bytes are a valid ed25519 secret. */
export function newEd25519Seed(): Uint8Array {
  return new Uint8Array(randomBytes(32));
}

function seedOf(secret: Uint8Array): Uint8Array {
  if (secret.length !== 32 && secret.length !== 64) {
    throw new Error('An ed25519 secret is 32 (seed) or 64 (seed + public key) bytes');
  }
  return secret.subarray(0, 32);
}

function publicKeyOf(key: KeyObject): Buffer {
  const { x } = key.export({ format: 'jwk' });
  if (!x) throw new Error('ed25519 key without a public part');
  return Buffer.from(x, 'base64url');
}

export interface SignedWireTransaction {
  /** The wire format: shortvec(signature count) || signatures || message. */
  wire: Buffer;
  /** The first signature (the fee payer's), base58: the transaction's id. */
  signature: string;
}

/**
 * Signs serialized message bytes with each required signer, in the order the message lists
 * them (its first `numRequiredSignatures` account keys), and builds the wire transaction.
 */
export function signWire(
  messageBytes: Buffer,
  requiredSigners: string[],
  signers: Ed25519Signer[],
): SignedWireTransaction {
  const byAddress = new Map(signers.map((signer) => [signer.address, signer]));
  const signatures = requiredSigners.map((address) =>
    sign(null, messageBytes, signerFor(byAddress, address).key),
  );
  return wireOf(signatures, messageBytes);
}

/** signWire with keys that may sign elsewhere (a wallet's key in an HSM beside a local one). */
export async function signWireWith(
  messageBytes: Buffer,
  requiredSigners: string[],
  keys: SolanaKey[],
): Promise<SignedWireTransaction> {
  const byAddress = new Map(keys.map((key) => [key.address, key]));
  const signatures = await Promise.all(
    requiredSigners.map(async (address) =>
      Buffer.from(await signerFor(byAddress, address).sign(messageBytes)),
    ),
  );
  return wireOf(signatures, messageBytes);
}

function signerFor<T>(byAddress: Map<string, T>, address: string): T {
  const signer = byAddress.get(address);
  if (!signer) throw new Error(`No signer for ${address}`);
  return signer;
}

function wireOf(signatures: Buffer[], messageBytes: Buffer): SignedWireTransaction {
  return {
    wire: Buffer.concat([shortVec(signatures.length), ...signatures, messageBytes]),
    signature: bs58.encode(signatures[0]),
  };
}

/** Signs a web3.js legacy Message (compiled by `Transaction.compileMessage()`). */
export function signMessage(message: Message, signers: Ed25519Signer[]): SignedWireTransaction {
  const required = message.accountKeys
    .slice(0, message.header.numRequiredSignatures)
    .map((key) => key.toBase58());
  return signWire(message.serialize(), required, signers);
}

/** The wire format with zeroed signatures: what simulation without sigVerify takes. */
export function unsignedWire(messageBytes: Buffer, signatureCount: number): Buffer {
  return Buffer.concat([shortVec(signatureCount), Buffer.alloc(64 * signatureCount), messageBytes]);
}

/** Solana's compact-u16 length prefix. */
export function shortVec(value: number): Buffer {
  const out: number[] = [];
  let rest = value;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(byte);
      return Buffer.from(out);
    }
    out.push(byte | 0x80);
  }
}
