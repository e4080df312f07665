import {
  Keypair,
  MessageV0,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
  type AddressLookupTableAccount,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { RpcError } from './rpc.errors';
import { decodeWireTransaction } from './wire-transaction.decoder';

const blockhash = bs58.encode(Buffer.alloc(32, 7));
const payer = Keypair.generate();
const recipient = Keypair.generate().publicKey;

function legacyTransfer(extra: TransactionInstruction[] = []): Transaction {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash });
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 5 }));
  if (extra.length > 0) tx.add(...extra);
  tx.sign(payer);
  return tx;
}

describe('decodeWireTransaction', () => {
  it('reads a signed legacy transaction as web3.js compiled it', () => {
    // 200 bytes of data: a compact-u16 length of two bytes.
    const memo = new TransactionInstruction({
      programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
      keys: [],
      data: Buffer.alloc(200, 0x61),
    });
    const tx = legacyTransfer([memo]);
    const wire = tx.serialize();
    const message = tx.compileMessage();

    const decoded = decodeWireTransaction(wire.toString('base64'), 'base64');

    expect(decoded.version).toBe('legacy');
    expect(decoded.signature).toBe(bs58.encode(tx.signature!));
    expect(decoded.signatures).toEqual([bs58.encode(tx.signature!)]);
    expect(decoded.header).toEqual(message.header);
    expect(decoded.staticAccounts).toEqual(message.accountKeys.map((key) => key.toBase58()));
    expect(decoded.staticAccountBytes.map((bytes) => bs58.encode(bytes))).toEqual(
      decoded.staticAccounts,
    );
    expect(decoded.recentBlockhash).toBe(blockhash);
    expect(
      decoded.instructions.map((ix) => ({ ...ix, data: Buffer.from(ix.data).toString('hex') })),
    ).toEqual(
      message.instructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accounts: ix.accounts,
        data: Buffer.from(bs58.decode(ix.data)).toString('hex'),
      })),
    );
    expect(decoded.instructions[1].data).toHaveLength(200);
    expect(decoded.addressTableLookups).toEqual([]);
  });

  it('reads a version 0 transaction with its address table lookups', () => {
    const table: AddressLookupTableAccount = {
      key: Keypair.generate().publicKey,
      state: {
        deactivationSlot: BigInt('18446744073709551615'),
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [recipient, Keypair.generate().publicKey],
      },
      isActive: () => true,
    };
    const message = MessageV0.compile({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 1 }),
      ],
      addressLookupTableAccounts: [table],
    });
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);

    const decoded = decodeWireTransaction(bs58.encode(tx.serialize()), 'base58');

    expect(decoded.version).toBe(0);
    expect(decoded.staticAccounts).toEqual(message.staticAccountKeys.map((key) => key.toBase58()));
    expect(decoded.addressTableLookups).toEqual([
      { accountKey: table.key.toBase58(), writableIndexes: [0], readonlyIndexes: [] },
    ]);
    expect(decoded.instructions).toHaveLength(1);
  });

  it.each([
    ['cut short', (wire: Buffer) => wire.subarray(0, wire.length - 3)],
    ['with a trailing byte', (wire: Buffer) => Buffer.concat([wire, Buffer.of(0)])],
    [
      'with an over-long length',
      (wire: Buffer) => Buffer.concat([Buffer.of(0xff, 0xff, 0xff, 0x01), wire.subarray(1)]),
    ],
  ])('refuses a transaction %s as invalid params', (_name, mangle) => {
    const wire = mangle(legacyTransfer().serialize());
    const decode = () => decodeWireTransaction(wire.toString('base64'), 'base64');
    expect(decode).toThrow(RpcError);
    expect(decode).toThrow(/failed to deserialize/);
  });

  it('refuses signatures that do not match the header', () => {
    const wire = legacyTransfer().serialize();
    // Two signatures announced, one required by the message.
    const twice = Buffer.concat([Buffer.of(2), wire.subarray(1, 65), wire.subarray(1)]);
    expect(() => decodeWireTransaction(twice.toString('base64'), 'base64')).toThrow(
      'Transaction signature length mismatch',
    );
  });
});
