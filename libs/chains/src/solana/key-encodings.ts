import type { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';

export interface KeyEncoding {
  bytes: Buffer;
  hex: string;
  base58?: string;
}

/**
 * A key's bytes (and their hex, and base58 when asked), once per key object: web3.js v1 keeps a
 * key as a BN and converts it again on every `toBuffer()`, and an airdrop carrier's transaction
 * names the same few objects (payer, mint, programs) some ninety times while it is derived and
 * compiled (0.6 ms a carrier profiled, before). Key objects are immutable; the cache holds them
 * weakly.
 */
const encodings = new WeakMap<PublicKey, KeyEncoding>();

export function encodingOf(key: PublicKey): KeyEncoding {
  let encoding = encodings.get(key);
  if (!encoding) {
    const bytes = key.toBuffer();
    encoding = { bytes, hex: bytes.toString('hex') };
    encodings.set(key, encoding);
  }
  return encoding;
}

/** The key's bytes: do not change them (they are shared). */
export function keyBytes(key: PublicKey): Buffer {
  return encodingOf(key).bytes;
}

export function base58Of(key: PublicKey): string {
  const encoding = encodingOf(key);
  return (encoding.base58 ??= bs58.encode(encoding.bytes));
}
