import { SigningKey, hexlify, type Signature } from 'ethers';
import { sign } from 'node:crypto';
import { signDigest } from '../evm/evm-signature';
import type { Ed25519Signer } from '../solana/ed25519-signer';
import type { Pkcs11Token } from './pkcs11-token';

/**
 * A managed EVM wallet's key, wherever it lives (decrypted in memory for a moment, or in an
 * HSM): it signs 32-byte digests and never hands out its bytes. A cloud KMS backend is one more
 * implementation (its Sign call over the digest, then `ethereumSignature`).
 */
export interface EvmKey {
  readonly address: string;
  signDigest(digest: string): Signature | Promise<Signature>;
}

/** A managed Solana wallet's key: it signs messages (Ed25519), as EvmKey does digests. */
export interface SolanaKey {
  /** base58 public key. */
  readonly address: string;
  sign(message: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

/**
 * A key decrypted for the moment, of the wallet at `address`: the caller wipes the secret after
 * use (WalletKeys).
 */
export function localEvmKey(secret: Uint8Array, address: string): EvmKey {
  const key = new SigningKey(hexlify(secret));
  return { address, signDigest: (digest) => signDigest(key, digest) };
}

export function localSolanaKey(signer: Ed25519Signer): SolanaKey {
  return { address: signer.address, sign: (message) => sign(null, message, signer.key) };
}

/** The secp256k1 key `id` of a PKCS#11 token, whose public key gives `address`. */
export function tokenEvmKey(token: Pkcs11Token, id: string, address: string): EvmKey {
  return { address, signDigest: (digest) => token.signDigest(id, digest) };
}

/** The Ed25519 key `id` of a PKCS#11 token, whose public key is `address` (base58). */
export function tokenSolanaKey(token: Pkcs11Token, id: string, address: string): SolanaKey {
  return { address, sign: (message) => token.signMessage(id, message) };
}
