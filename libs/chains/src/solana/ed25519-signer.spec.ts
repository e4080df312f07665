import { sign } from 'node:crypto';
import {
  ComputeBudgetInstruction,
  ComputeBudgetProgram,
  Keypair,
  Message,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import {
  ed25519KeyFromPkcs8,
  ed25519Signer,
  newEd25519Seed,
  signMessage,
  signWire,
  unsignedWire,
} from './ed25519-signer';
import { compileLegacyMessage, wireSigners, withComputeUnitLimit } from './legacy-message';
import { itemMintInstructions } from './token2022-instructions';

const BLOCKHASH = Keypair.generate().publicKey.toBase58();

function transfer(from: Keypair): Transaction {
  return new Transaction({
    feePayer: from.publicKey,
    blockhash: BLOCKHASH,
    lastValidBlockHeight: 1,
  }).add(
    SystemProgram.transfer({
      fromPubkey: from.publicKey,
      toPubkey: Keypair.generate().publicKey,
      lamports: 1234,
    }),
  );
}

function itemMint(payer: Keypair, item: Keypair): TransactionInstruction[] {
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }),
    ...itemMintInstructions({
      authority: payer.publicKey,
      collection: Keypair.generate().publicKey,
      item: item.publicKey,
      recipient: Keypair.generate().publicKey,
      metadata: { name: 'Item #1', symbol: 'ITM', uri: 'https://example.com/item.json' },
      rentOf: (length) => BigInt(128 + length) * 6960n,
    }),
  ];
}

describe('node:crypto ed25519 signing of Solana transactions', () => {
  it('derives the same public key as web3.js from a 64-byte secret key and from its seed', () => {
    const keypair = Keypair.generate();
    expect(ed25519Signer(keypair.secretKey).address).toBe(keypair.publicKey.toBase58());
    expect(ed25519Signer(keypair.secretKey.subarray(0, 32)).address).toBe(
      keypair.publicKey.toBase58(),
    );
    const seed = newEd25519Seed();
    expect(ed25519Signer(seed).address).toBe(Keypair.fromSeed(seed).publicKey.toBase58());
  });

  it('refuses a secret key whose public half does not match, and wrong sizes', () => {
    const secret = Keypair.generate().secretKey;
    secret.set(Keypair.generate().publicKey.toBytes(), 32);
    expect(() => ed25519Signer(secret)).toThrow(/does not match/);
    expect(() => ed25519Signer(new Uint8Array(31))).toThrow(/32 .* or 64/);
  });

  it('signs exactly the bytes web3.js signs (ed25519 is deterministic)', () => {
    const payer = Keypair.generate();
    const ours = transfer(payer);
    const theirs = transfer(payer);
    theirs.instructions[0] = ours.instructions[0];
    theirs.sign(payer);
    const signed = signMessage(ours.compileMessage(), [ed25519Signer(payer.secretKey)]);
    expect(signed.wire.equals(theirs.serialize())).toBe(true);
    expect(signed.signature).toBe(bs58.encode(theirs.signature!));
  });

  it('produces signatures that web3.js and tweetnacl verify', () => {
    const payer = Keypair.generate();
    const message = transfer(payer).compileMessage();
    const signed = signMessage(message, [ed25519Signer(payer.secretKey)]);

    const decoded = Transaction.from(signed.wire);
    expect(decoded.verifySignatures()).toBe(true);
    expect(
      nacl.sign.detached.verify(
        message.serialize(),
        bs58.decode(signed.signature),
        payer.publicKey.toBytes(),
      ),
    ).toBe(true);

    const tampered = Buffer.from(signed.wire);
    tampered[tampered.length - 1] ^= 1;
    expect(Transaction.from(tampered).verifySignatures()).toBe(false);
  });

  it('gives the same key through JWK import as through PKCS#8 DER', () => {
    const keypair = Keypair.generate();
    const message = Buffer.from('the same message');
    const viaJwk = sign(null, message, ed25519Signer(keypair.secretKey).key);
    const viaDer = sign(null, message, ed25519KeyFromPkcs8(keypair.secretKey));
    expect(viaJwk.equals(viaDer)).toBe(true);
    expect(nacl.sign.detached.verify(message, viaDer, keypair.publicKey.toBytes())).toBe(true);
  });

  it('signs a two-signer NFT mint (payer + new mint) in the message’s signer order', () => {
    const payer = Keypair.generate();
    const item = Keypair.generate();
    const compiled = compileLegacyMessage(payer.publicKey, BLOCKHASH, itemMint(payer, item));
    expect(compiled.signers).toEqual([payer.publicKey.toBase58(), item.publicKey.toBase58()]);
    const signed = signWire(compiled.bytes, compiled.signers, [
      ed25519Signer(item.secretKey),
      ed25519Signer(payer.secretKey),
    ]);
    const decoded = Transaction.from(signed.wire);
    expect(decoded.verifySignatures()).toBe(true);
    expect(decoded.signatures.map((s) => s.publicKey.toBase58())).toEqual(compiled.signers);
    expect(wireSigners(signed.wire)).toEqual(compiled.signers);
    expect(() =>
      signWire(compiled.bytes, compiled.signers, [ed25519Signer(payer.secretKey)]),
    ).toThrow(/No signer/);
  });
});

describe('legacy message compilation', () => {
  it('compiles the same message as web3.js: header, accounts and instructions', () => {
    const payer = Keypair.generate();
    const instructions = itemMint(payer, Keypair.generate());
    const ours = Message.from(compileLegacyMessage(payer.publicKey, BLOCKHASH, instructions).bytes);
    const theirs = new Transaction({
      feePayer: payer.publicKey,
      blockhash: BLOCKHASH,
      lastValidBlockHeight: 1,
    })
      .add(...instructions)
      .compileMessage();

    expect(ours.header).toEqual(theirs.header);
    expect(ours.recentBlockhash).toBe(BLOCKHASH);
    expect(ours.accountKeys[0].toBase58()).toBe(payer.publicKey.toBase58());
    const keys = (message: Message) => message.accountKeys.map((k) => k.toBase58()).sort();
    expect(keys(ours)).toEqual(keys(theirs));
    for (const [i, key] of ours.accountKeys.entries()) {
      const j = theirs.accountKeys.findIndex((k) => k.equals(key));
      expect([ours.isAccountSigner(i), ours.isAccountWritable(i)]).toEqual([
        theirs.isAccountSigner(j),
        theirs.isAccountWritable(j),
      ]);
    }
    // Decompiled, the instructions are the ones given (programs, account metas, data).
    const decompiled = TransactionMessage.decompile(
      new VersionedTransaction(ours).message,
    ).instructions;
    expect(decompiled).toHaveLength(instructions.length);
    decompiled.forEach((ix, index) => {
      const original = instructions[index];
      expect(ix.programId.toBase58()).toBe(original.programId.toBase58());
      expect(ix.data.equals(original.data)).toBe(true);
      expect(ix.keys.map((k) => k.pubkey.toBase58())).toEqual(
        original.keys.map((k) => k.pubkey.toBase58()),
      );
    });
  });

  it('sets the compute-unit limit in place, and signs the patched bytes', () => {
    const payer = Keypair.generate();
    const item = Keypair.generate();
    const compiled = compileLegacyMessage(payer.publicKey, BLOCKHASH, itemMint(payer, item));
    const patched = withComputeUnitLimit(compiled, 123_456);
    expect(patched.bytes.length).toBe(compiled.bytes.length);
    const message = Message.from(patched.bytes);
    const first = TransactionMessage.decompile(new VersionedTransaction(message).message)
      .instructions[0];
    expect(ComputeBudgetInstruction.decodeSetComputeUnitLimit(first).units).toBe(123_456);
    // The original is untouched, and simulation gets zeroed signatures of the right count.
    expect(
      ComputeBudgetInstruction.decodeSetComputeUnitLimit(
        TransactionMessage.decompile(new VersionedTransaction(Message.from(compiled.bytes)).message)
          .instructions[0],
      ).units,
    ).toBe(1_400_000);
    const unsigned = unsignedWire(patched.bytes, 2);
    expect(unsigned.length).toBe(1 + 128 + patched.bytes.length);
    expect(
      Transaction.from(
        signWire(patched.bytes, patched.signers, [
          ed25519Signer(payer.secretKey),
          ed25519Signer(item.secretKey),
        ]).wire,
      ).verifySignatures(),
    ).toBe(true);
  });
});
