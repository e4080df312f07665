import { Signature, SigningKey, Transaction, hexlify, keccak256, randomBytes } from 'ethers';
import {
  hexOf,
  signedTransactionBytes,
  unsignedTransactionBytes,
  type EvmTransactionFields,
} from './evm-transaction-bytes';

/** A random unsigned integer of up to `bytes` bytes; zero and small values now and then. */
function randomQuantity(bytes: number): bigint {
  const pick = Math.random();
  if (pick < 0.1) return 0n;
  if (pick < 0.2) return BigInt(Math.floor(Math.random() * 128));
  const size = 1 + Math.floor(Math.random() * bytes);
  return BigInt(hexlify(randomBytes(size)));
}

function randomFields(): EvmTransactionFields {
  const type = Math.random() < 0.5 ? 0 : 2;
  // Lengths around RLP's 55-byte boundary, and long ones (a deployment's bytecode).
  const dataLength = [0, 1, 54, 55, 56, 100, 1_000, 70_000][Math.floor(Math.random() * 8)];
  const fields: EvmTransactionFields = {
    type,
    chainId: BigInt(1 + Math.floor(Math.random() * 2 ** 31)),
    nonce: randomQuantity(6),
    gasLimit: randomQuantity(4),
    to: Math.random() < 0.2 ? null : hexlify(randomBytes(20)),
    // One byte under 0x80 is its own RLP encoding.
    data:
      dataLength === 1
        ? hexlify(Uint8Array.of(Math.floor(Math.random() * 256)))
        : hexlify(randomBytes(dataLength)),
  };
  if (type === 0) fields.gasPrice = randomQuantity(12);
  else {
    const [a, b] = [randomQuantity(12), randomQuantity(12)];
    fields.maxFeePerGas = a > b ? a : b;
    fields.maxPriorityFeePerGas = a > b ? b : a;
  }
  return fields;
}

function ethersTransaction(fields: EvmTransactionFields): Transaction {
  return Transaction.from({
    type: fields.type,
    chainId: fields.chainId,
    nonce: Number(fields.nonce),
    gasLimit: fields.gasLimit,
    to: fields.to,
    data: fields.data,
    ...(fields.type === 0
      ? { gasPrice: fields.gasPrice }
      : { maxFeePerGas: fields.maxFeePerGas, maxPriorityFeePerGas: fields.maxPriorityFeePerGas }),
  });
}

describe('EVM transaction bytes', () => {
  it("are ethers' bytes, unsigned and signed, for random transactions of both types", () => {
    const key = new SigningKey(hexlify(randomBytes(32)));
    for (let i = 0; i < 400; i++) {
      const fields = randomFields();
      const reference = ethersTransaction(fields);
      const unsigned = unsignedTransactionBytes(fields);
      expect(hexOf(unsigned)).toBe(reference.unsignedSerialized);
      expect(keccak256(unsigned)).toBe(reference.unsignedHash);

      const signature = key.sign(reference.unsignedHash);
      reference.signature = signature;
      const signed = signedTransactionBytes(fields, {
        r: signature.r,
        s: signature.s,
        yParity: signature.yParity,
      });
      expect(hexOf(signed)).toBe(reference.serialized);
      expect(keccak256(signed)).toBe(reference.hash);
    }
  });

  it('encodes r and s with leading zero bytes as the integers they are', () => {
    const fields = randomFields();
    const signature = Signature.from({
      r: `0x00${'11'.repeat(31)}`,
      s: `0x0000${'22'.repeat(30)}`,
      yParity: 1,
    });
    const reference = ethersTransaction(fields);
    reference.signature = signature;
    expect(hexOf(signedTransactionBytes(fields, signature))).toBe(reference.serialized);
  });

  it('refuses what is not a transaction of its kind', () => {
    const fields: EvmTransactionFields = {
      type: 2,
      chainId: 1n,
      nonce: 0n,
      gasLimit: 21_000n,
      to: '0x1234',
      data: '0x',
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    };
    expect(() => unsignedTransactionBytes(fields)).toThrow(/Not an address/);
    expect(() => unsignedTransactionBytes({ ...fields, to: null, data: '0xabc' })).toThrow(
      /not hex bytes/,
    );
    expect(() => unsignedTransactionBytes({ ...fields, to: null, type: 0 })).toThrow(/gasPrice/);
    expect(() => unsignedTransactionBytes({ ...fields, to: null, nonce: -1n })).toThrow(/negative/);
    expect(() =>
      unsignedTransactionBytes({ ...fields, to: null, maxPriorityFeePerGas: 2n }),
    ).toThrow(/tip above its fee cap/);
  });
});
