import { createPrivateKey, createPublicKey } from 'node:crypto';
import bs58 from 'bs58';
import { getAddress, keccak256 } from 'ethers';
import { privateKeyVerify, publicKeyCreate } from 'secp256k1';

/** The managed wallets whose private keys must stand nowhere. */
export interface ScannedWallets {
  evm: string;
  solana: string;
}

/** Where a wallet's private key was found: which text, which encoding (never the key). */
export interface KeySighting {
  wallet: 'evm' | 'solana';
  source: string;
  encoding: 'hex' | 'base64' | 'base58';
}

const KEY_BYTES = 32;
/** Runs longer than this are tried as Ed25519 seeds at their start only (see below). */
const ED25519_EVERY_OFFSET_UP_TO = 128;
const HEX_RUN = /[0-9a-fA-F]{64,}/g;
const BASE64_RUN = /[A-Za-z0-9+/_-]{43,}={0,2}/g;
const BASE58_RUN = /[1-9A-HJ-NP-Za-km-z]{43,}/g;
/** PKCS#8 DER of an Ed25519 private key, before its 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * Finds a wallet's private key in any text without knowing it: every 32 bytes that any hex,
 * base64 or base58 run of the text encodes are tried as a secp256k1 private key and as an
 * Ed25519 seed, and a sighting is one whose public key is the wallet's. So it finds the key
 * however it was written, and cannot mistake any other bytes for it. secp256k1 is tried at every
 * byte offset of every run; Ed25519 (ten times the cost) at every offset of runs of up to
 * 128 bytes (a seed, a 64-byte secret key, a small record holding one) and at the start of
 * longer ones (signed transactions: trying each of their offsets took 37 s a suite).
 */
export function privateKeySightings(
  wallets: ScannedWallets,
  texts: readonly { source: string; text: string }[],
): KeySighting[] {
  const evm = Buffer.from(getAddress(wallets.evm).slice(2), 'hex');
  const solana = Buffer.from(bs58.decode(wallets.solana));
  const sightings: KeySighting[] = [];
  // Bytes tried once per curve, in whichever text they first stood: the verdict is the same.
  const tried = { evm: new Set<string>(), solana: new Set<string>() };
  const firstTry = (wallet: 'evm' | 'solana', key: string) =>
    !tried[wallet].has(key) && Boolean(tried[wallet].add(key));
  for (const { source, text } of texts) {
    for (const [encoding, bytes] of encodedBytes(text)) {
      for (let offset = 0; offset + KEY_BYTES <= bytes.length; offset++) {
        const candidate = bytes.subarray(offset, offset + KEY_BYTES);
        const key = candidate.toString('hex');
        if (firstTry('evm', key) && isEvmKeyOf(candidate, evm)) {
          sightings.push({ wallet: 'evm', source, encoding });
        }
        const ed25519Offset = offset === 0 || bytes.length <= ED25519_EVERY_OFFSET_UP_TO;
        if (ed25519Offset && firstTry('solana', key) && isEd25519SeedOf(candidate, solana)) {
          sightings.push({ wallet: 'solana', source, encoding });
        }
      }
    }
  }
  return sightings;
}

/** The bytes every hex, base64 and base58 run of the text stands for (hex at both alignments). */
function* encodedBytes(text: string): Generator<['hex' | 'base64' | 'base58', Buffer]> {
  for (const [run] of text.matchAll(HEX_RUN)) {
    yield ['hex', Buffer.from(run.slice(0, run.length & ~1), 'hex')];
    yield ['hex', Buffer.from(run.slice(1, 1 + ((run.length - 1) & ~1)), 'hex')];
  }
  // A run of hex digits is read as hex only (as base64 or base58 it is nothing the service
  // writes, and would multiply what is tried).
  for (const [run] of text.matchAll(BASE64_RUN)) {
    if (isHex(run)) continue;
    yield ['base64', Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64')];
  }
  for (const [run] of text.matchAll(BASE58_RUN)) {
    if (isHex(run)) continue;
    try {
      yield ['base58', Buffer.from(bs58.decode(run))];
    } catch {
      // not base58 after all (a run of the alphabet that decodes to nothing)
    }
  }
}

function isHex(run: string): boolean {
  return /^[0-9a-fA-F]+$/.test(run);
}

function isEvmKeyOf(candidate: Buffer, address: Buffer): boolean {
  if (!privateKeyVerify(candidate)) return false;
  // The address: the last 20 bytes of the keccak of the public point (without its 0x04 prefix).
  const point = publicKeyCreate(candidate, false).subarray(1);
  return Buffer.from(keccak256(point).slice(2 + 24), 'hex').equals(address);
}

function isEd25519SeedOf(candidate: Buffer, publicKey: Buffer): boolean {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, candidate]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return spki.subarray(spki.length - KEY_BYTES).equals(publicKey);
}
