import { randomBytes } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { findProgramAddress, isOnEd25519Curve } from './program-address';

/** The library's answer (web3.js, through @noble/curves' point decompression). */
const decompresses = (bytes: Uint8Array): boolean => PublicKey.isOnCurve(bytes);

/** y (little-endian, below 2^255) with the sign bit of x set or not. */
const encoding = (y: bigint, negative = false): Uint8Array => {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number((y >> BigInt(8 * i)) & 0xffn);
  if (negative) bytes[31] |= 0x80;
  return bytes;
};

describe('isOnEd25519Curve', () => {
  it('decides as web3.js does on random bytes', () => {
    for (let i = 0; i < 10_000; i++) {
      const bytes = randomBytes(32);
      expect([i, isOnEd25519Curve(bytes)]).toEqual([i, decompresses(bytes)]);
    }
  });

  it('decides as web3.js does at the edges of the encoding', () => {
    const p = 2n ** 255n - 19n;
    const edges = [0n, 1n, 2n, p - 2n, p - 1n, p, p + 1n, 2n ** 255n - 1n];
    for (const y of edges) {
      for (const negative of [false, true]) {
        const bytes = encoding(y, negative);
        expect([y, negative, isOnEd25519Curve(bytes)]).toEqual([y, negative, decompresses(bytes)]);
      }
    }
  });

  it('knows every public key for a point', () => {
    for (let i = 0; i < 200; i++) {
      expect(isOnEd25519Curve(Keypair.generate().publicKey.toBytes())).toBe(true);
    }
  });
});

describe('findProgramAddress', () => {
  it('finds what PublicKey.findProgramAddressSync finds, bump included', () => {
    const mint = Keypair.generate().publicKey;
    for (let i = 0; i < 2_000; i++) {
      const seeds = [
        Keypair.generate().publicKey.toBuffer(),
        TOKEN_2022_PROGRAM_ID.toBuffer(),
        mint.toBuffer(),
      ];
      const [address, bump] = PublicKey.findProgramAddressSync(seeds, ASSOCIATED_TOKEN_PROGRAM_ID);
      const found = findProgramAddress(seeds, ASSOCIATED_TOKEN_PROGRAM_ID);
      expect([found.address.toBase58(), found.bump]).toEqual([address.toBase58(), bump]);
    }
  });

  it('refuses a seed longer than 32 bytes, as the runtime does', () => {
    expect(() => findProgramAddress([new Uint8Array(33)], ASSOCIATED_TOKEN_PROGRAM_ID)).toThrow(
      RangeError,
    );
  });
});
