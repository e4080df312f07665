import { ecdsaRecover, publicKeyConvert, signatureNormalize } from 'secp256k1';
import { Signature, getBytes, hexlify } from 'ethers';

/**
 * An Ethereum signature from a bare ECDSA one (r || s, as a PKCS#11 token's CKM_ECDSA gives it):
 * s brought to its low half (EIP-2; the network refuses the high one), and the recovery id found
 * by trying both against the key's public key. Throws when neither recovers it: the signature is
 * not of this digest by this key. With libsecp256k1 (native), as signDigest: ethers' JavaScript
 * recovery took 2-3 ms a signature, which held a SoftHSM2 token's 1,100 ECDSA signatures a second
 * to about 400 (bench:signers).
 */
export function ethereumSignature(
  rawSignature: Uint8Array,
  digest: string,
  publicKey: string,
): Signature {
  if (rawSignature.length !== 64) {
    throw new Error(`An ECDSA signature is 64 bytes (r || s), not ${rawSignature.length}`);
  }
  const signature = signatureNormalize(Uint8Array.from(rawSignature));
  const message = getBytes(digest);
  const wanted = Buffer.from(publicKeyConvert(getBytes(publicKey), false));
  for (const recid of [0, 1]) {
    let recovered: Uint8Array;
    try {
      recovered = ecdsaRecover(signature, recid, message, false);
    } catch {
      continue; // no point for this id
    }
    if (wanted.equals(recovered)) {
      return Signature.from({
        r: hexlify(signature.subarray(0, 32)),
        s: hexlify(signature.subarray(32, 64)),
        yParity: recid === 1 ? 1 : 0,
      });
    }
  }
  throw new Error('The token signed a digest whose signature recovers to another key');
}
