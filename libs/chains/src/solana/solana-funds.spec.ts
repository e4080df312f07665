import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { associatedAccountsCreated, lamportsNeeded } from './solana-funds';
import { tokenMintBatchInstructions } from './token2022-instructions';

const BLOCKHASH = '11111111111111111111111111111111';

function wireOf(payer: Keypair, ...instructions: Parameters<Transaction['add']>): Uint8Array {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: BLOCKHASH });
  tx.add(...instructions);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false });
}

describe('lamportsNeeded', () => {
  const payer = Keypair.generate();

  it('is a base fee per signature for a transaction that moves no lamports', () => {
    const memoLike = SystemProgram.assign({
      accountPubkey: payer.publicKey,
      programId: SystemProgram.programId,
    });
    expect(lamportsNeeded(wireOf(payer, memoLike))).toBe(5_000n);
  });

  it('adds the rent of created accounts and what is transferred', () => {
    const account = Keypair.generate();
    const create = SystemProgram.createAccount({
      fromPubkey: payer.publicKey,
      newAccountPubkey: account.publicKey,
      lamports: 2_039_280,
      space: 165,
      programId: SystemProgram.programId,
    });
    const transfer = SystemProgram.transfer({
      fromPubkey: payer.publicKey,
      toPubkey: account.publicKey,
      lamports: 1_000,
    });
    // Two signers (the payer and the new account): two base fees.
    expect(lamportsNeeded(wireOf(payer, create, transfer))).toBe(10_000n + 2_039_280n + 1_000n);
  });
});

describe('associatedAccountsCreated', () => {
  const payer = Keypair.generate();
  const mint = Keypair.generate().publicKey;

  it('names each recipient account a batch of mints creates if missing, once each', () => {
    const [first, second] = [Keypair.generate().publicKey, Keypair.generate().publicKey];
    const { instructions } = tokenMintBatchInstructions({
      authority: payer.publicKey,
      mint,
      mints: [first, second, first].map((recipient) => ({ recipient, amount: 1n })),
      decimals: 6,
    });
    const created = associatedAccountsCreated(wireOf(payer, ...instructions));
    expect(created.map(String)).toEqual([
      instructions[0].keys[1].pubkey.toBase58(),
      instructions[2].keys[1].pubkey.toBase58(),
    ]);
  });

  it('is none for a transaction without the associated-token program', () => {
    const transfer = SystemProgram.transfer({
      fromPubkey: payer.publicKey,
      toPubkey: Keypair.generate().publicKey,
      lamports: 1,
    });
    expect(associatedAccountsCreated(wireOf(payer, transfer))).toEqual([]);
  });
});
