import { SigningKey, Wallet, getBytes, keccak256, toUtf8Bytes } from 'ethers';
import { ethereumSignature } from './ecdsa-recovery';

const N = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');

function raw(r: string, s: bigint): Uint8Array {
  return getBytes(r + s.toString(16).padStart(64, '0'));
}

describe('ethereumSignature', () => {
  const key = new SigningKey(Wallet.createRandom().privateKey);
  const digest = keccak256(toUtf8Bytes('mint 1'));
  const made = key.sign(digest);

  it('recovers the id of a low-s signature: the one ethers makes', () => {
    const signature = ethereumSignature(raw(made.r, BigInt(made.s)), digest, key.publicKey);
    expect(signature.serialized).toBe(made.serialized);
  });

  it('brings a high s to its low half (the same signature, as the network accepts it)', () => {
    const high = N - BigInt(made.s);
    const signature = ethereumSignature(raw(made.r, high), digest, key.publicKey);
    expect(signature.serialized).toBe(made.serialized);
    expect(BigInt(signature.s) <= N / 2n).toBe(true);
  });

  it('accepts the public key compressed', () => {
    const compressed = SigningKey.computePublicKey(key.publicKey, true);
    expect(ethereumSignature(raw(made.r, BigInt(made.s)), digest, compressed).serialized).toBe(
      made.serialized,
    );
  });

  it('refuses a signature of another digest, or by another key', () => {
    const other = keccak256(toUtf8Bytes('mint 2'));
    expect(() => ethereumSignature(raw(made.r, BigInt(made.s)), other, key.publicKey)).toThrow(
      /recovers to another key/,
    );
    const stranger = new SigningKey(Wallet.createRandom().privateKey);
    expect(() =>
      ethereumSignature(raw(made.r, BigInt(made.s)), digest, stranger.publicKey),
    ).toThrow(/another key/);
  });

  it('refuses anything but 64 bytes', () => {
    expect(() => ethereumSignature(new Uint8Array(65), digest, key.publicKey)).toThrow(/64 bytes/);
  });
});
