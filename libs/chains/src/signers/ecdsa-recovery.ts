import { Signature, SigningKey, getBytes, hexlify, toBeHex } from 'ethers';

/** The order of secp256k1's group. */
const N = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');

/**
 * An Ethereum signature from a bare ECDSA one (r || s, as a PKCS#11 token's CKM_ECDSA gives it):
 * s brought to its low half (EIP-2; the network refuses the high one), and the recovery id found
 * by trying both against the key's public key. Throws when neither recovers it: the signature is
 * not of this digest by this key.
 */
export function ethereumSignature(
  rawSignature: Uint8Array,
  digest: string,
  publicKey: string,
): Signature {
  if (rawSignature.length !== 64) {
    throw new Error(`An ECDSA signature is 64 bytes (r || s), not ${rawSignature.length}`);
  }
  const r = hexlify(rawSignature.subarray(0, 32));
  let s = BigInt(hexlify(rawSignature.subarray(32, 64)));
  if (s > N / 2n) s = N - s;
  const wanted = SigningKey.computePublicKey(getBytes(publicKey), false);
  for (const v of [27, 28]) {
    const signature = Signature.from({ r, s: toBeHex(s, 32), v });
    if (SigningKey.recoverPublicKey(digest, signature) === wanted) return signature;
  }
  throw new Error('The token signed a digest whose signature recovers to another key');
}
