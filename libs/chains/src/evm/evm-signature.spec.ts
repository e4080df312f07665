import { SigningKey, Transaction, computeAddress, hexlify, keccak256, randomBytes } from 'ethers';
import { signDigest } from './evm-signature';

describe('signDigest', () => {
  it('makes the signature ethers makes, for many keys and digests', () => {
    for (let i = 0; i < 200; i++) {
      const key = new SigningKey(hexlify(randomBytes(32)));
      const digest = keccak256(randomBytes(64));
      expect(signDigest(key, digest).serialized).toBe(key.sign(digest).serialized);
    }
  });

  it('signs a transaction its sender can be recovered from', () => {
    const key = new SigningKey(hexlify(randomBytes(32)));
    const tx = Transaction.from({
      type: 2,
      chainId: 8453,
      nonce: 7,
      to: '0x000000000000000000000000000000000000dEaD',
      data: '0x1234',
      gasLimit: 100_000n,
      maxFeePerGas: 3_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    tx.signature = signDigest(key, tx.unsignedHash);
    const decoded = Transaction.from(tx.serialized);
    expect(decoded.from).toBe(computeAddress(key.publicKey));
  });
});
