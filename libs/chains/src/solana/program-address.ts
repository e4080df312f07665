import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { keyBytes } from './key-encodings';

/**
 * Program-derived addresses, as `PublicKey.findProgramAddressSync` finds them, about seven times
 * cheaper. Why not the library's: every recipient of an airdrop's token mint needs its
 * associated account's address, and web3.js (through @noble/curves 1.9) spends about 100 µs a
 * seed tried deciding whether a hash is a curve point, by decompressing it (a square root: some
 * 250 modular squarings of BigInts). That was 27% of the worker's CPU in `bench:airdrop`'s
 * Solana token run (3.5 s of 13 s profiled). Here the test is the Jacobi symbol (whether x² has
 * a root, not the root) on small-integer limbs, and the hash is node:crypto's: 10,000
 * derivations took 4.4-5.0 s of CPU with web3.js and 0.6-0.7 s here (2026-11-27). The unit
 * test checks both against the library on random input and on the edge cases of the encoding.
 */

const P = 2n ** 255n - 19n;
/** The Edwards curve constant d of ed25519: -121665/121666 mod p. */
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const PDA_MARKER = Buffer.from('ProgramDerivedAddress');
const MAX_SEED_LENGTH = 32;

export interface ProgramAddress {
  address: PublicKey;
  /** The bump seed found: the first, from 255 down, whose address is off the curve. */
  bump: number;
}

export function findProgramAddress(seeds: Uint8Array[], programId: PublicKey): ProgramAddress {
  for (const seed of seeds) {
    if (seed.length > MAX_SEED_LENGTH) throw new RangeError('a seed is at most 32 bytes');
  }
  const program = keyBytes(programId);
  for (let bump = 255; bump >= 0; bump--) {
    const hash = createHash('sha256');
    for (const seed of seeds) hash.update(seed);
    const digest = hash.update(Uint8Array.of(bump)).update(program).update(PDA_MARKER).digest();
    if (!isOnEd25519Curve(digest)) return { address: new PublicKey(digest), bump };
  }
  throw new Error('No program address found for these seeds');
}

/**
 * Whether 32 bytes are a point's encoding that decompresses (as `PublicKey.isOnCurve`, which is
 * @noble/curves' strict `fromHex`): y below p, (y² - 1) / (d y² + 1) a square, and x = 0 not marked negative.
 */
export function isOnEd25519Curve(bytes: Uint8Array): boolean {
  // Little-endian, the top bit (x's sign) apart.
  const bigEndian = Buffer.from(bytes).reverse();
  bigEndian[0] &= 0x7f;
  const y = BigInt(`0x${bigEndian.toString('hex')}`);
  if (y >= P) return false;
  const y2 = (y * y) % P;
  const u = (y2 - 1n + P) % P;
  const v = (D * y2 + 1n) % P;
  if (u === 0n) return (bytes[31] & 0x80) === 0;
  // v is never 0 (d is not a square), and u / v is a square exactly when u * v is.
  return jacobi((u * v) % P, P) === 1;
}

const LIMB_BITS = 26;
const LIMB_MASK = (1 << LIMB_BITS) - 1;
/** 260 bits: p and everything below it. */
const LIMBS = 10;

/**
 * The Jacobi symbol (a / n) for odd n > 0 and 0 <= a, by the binary algorithm on 26-bit limbs:
 * shifts and subtractions of small integers, no BigInt arithmetic in the loop (twice as fast as
 * the same algorithm on BigInts, each of whose operations allocates: 19 us a call, not 40).
 */
function jacobi(aValue: bigint, nValue: bigint): number {
  let a = limbsOf(aValue);
  let n = limbsOf(nValue);
  let length = LIMBS;
  let sign = 1;
  for (;;) {
    while (length > 1 && a[length - 1] === 0 && n[length - 1] === 0) length--;
    if (isZero(a, length)) return isOne(n, length) ? sign : 0;
    // (2 / n) is -1 exactly when n is 3 or 5 mod 8: each factor of two taken from a counts.
    while (a[0] === 0) {
      // A whole limb of zeros: an even number of factors of two, no change of sign.
      a.copyWithin(0, 1, length);
      a[length - 1] = 0;
    }
    const zeros = 31 - Math.clz32(a[0] & -a[0]);
    if (zeros > 0) {
      for (let i = 0; i < length - 1; i++) {
        a[i] = (a[i] >>> zeros) | ((a[i + 1] << (LIMB_BITS - zeros)) & LIMB_MASK);
      }
      a[length - 1] >>>= zeros;
      const nMod8 = n[0] & 7;
      if (zeros & 1 && (nMod8 === 3 || nMod8 === 5)) sign = -sign;
    }
    // Both odd now. Reciprocity: swapping them flips the sign when both are 3 mod 4.
    if (isBelow(a, n, length)) {
      [a, n] = [n, a];
      if ((a[0] & 3) === 3 && (n[0] & 3) === 3) sign = -sign;
    }
    // (a / n) = ((a - n) / n), and a - n is even.
    let borrow = 0;
    for (let i = 0; i < length; i++) {
      const difference = a[i] - n[i] - borrow;
      borrow = difference < 0 ? 1 : 0;
      a[i] = difference & LIMB_MASK;
    }
  }
}

function limbsOf(value: bigint): Int32Array {
  const limbs = new Int32Array(LIMBS);
  for (let i = 0; i < LIMBS; i++) {
    limbs[i] = Number(value & BigInt(LIMB_MASK));
    value >>= BigInt(LIMB_BITS);
  }
  return limbs;
}

function isZero(limbs: Int32Array, length: number): boolean {
  for (let i = 0; i < length; i++) if (limbs[i] !== 0) return false;
  return true;
}

function isOne(limbs: Int32Array, length: number): boolean {
  return limbs[0] === 1 && isZero(limbs.subarray(1), length - 1);
}

function isBelow(a: Int32Array, b: Int32Array, length: number): boolean {
  for (let i = length - 1; i >= 0; i--) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}
