import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import {
  getCompiledTransactionMessageEncoder,
  getTransactionEncoder,
  type Address,
  type SignatureBytes,
  type TransactionMessageBytes,
} from '@solana/kit';
import bs58 from 'bs58';
import { SYSTEM_PROGRAM } from './wire-transaction.decoder';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The keypair that pays airdrops, signing real system transfers so airdrops land like any transaction. */
export class Faucet {
  readonly address: string;
  readonly addressBytes: Uint8Array;
  private readonly privateKey: KeyObject;
  private readonly messageEncoder = getCompiledTransactionMessageEncoder();
  private readonly transactionEncoder = getTransactionEncoder();

  constructor(seedText = 'asset-issuance-engine localnet faucet') {
    const seed = createHash('sha256').update(seedText).digest();
    this.privateKey = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
    const spki = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' });
    this.addressBytes = new Uint8Array(spki.subarray(spki.length - 32));
    this.address = bs58.encode(this.addressBytes);
  }

  transfer(
    to: string,
    lamports: bigint,
    blockhash: string,
  ): { signature: string; bytes: Uint8Array } {
    const data = new Uint8Array(12);
    const view = new DataView(data.buffer);
    view.setUint32(0, 2, true);
    view.setBigUint64(4, lamports, true);
    const messageBytes = this.messageEncoder.encode({
      version: 'legacy',
      header: {
        numSignerAccounts: 1,
        numReadonlySignerAccounts: 0,
        numReadonlyNonSignerAccounts: 1,
      },
      staticAccounts: [this.address as Address, to as Address, SYSTEM_PROGRAM as Address],
      lifetimeToken: blockhash,
      instructions: [{ programAddressIndex: 2, accountIndices: [0, 1], data }],
    }) as TransactionMessageBytes;
    const signature = new Uint8Array(
      sign(null, Buffer.from(messageBytes), this.privateKey),
    ) as SignatureBytes;
    const bytes = this.transactionEncoder.encode({
      messageBytes,
      signatures: { [this.address as Address]: signature },
    }) as Uint8Array;
    return { signature: bs58.encode(signature), bytes };
  }
}
