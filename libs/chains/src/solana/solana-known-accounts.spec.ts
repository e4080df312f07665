import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_INSTRUCTIONS_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  SystemProgram,
} from '@solana/web3.js';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { MEMO_PROGRAM_ID } from './operation-memo';
import { SOLANA_KNOWN_PROGRAMS, solanaLostRecipient } from './solana-known-accounts';

describe('solanaLostRecipient', () => {
  it.each([
    [SystemProgram.programId, 'the System program'],
    [TOKEN_PROGRAM_ID, 'the SPL Token program'],
    [TOKEN_2022_PROGRAM_ID, 'the Token-2022 program'],
    [ASSOCIATED_TOKEN_PROGRAM_ID, 'the Associated Token Account program'],
    [MEMO_PROGRAM_ID, 'the Memo program'],
    [ComputeBudgetProgram.programId, 'the Compute Budget program'],
    [NATIVE_MINT, 'the native SOL mint'],
  ])('names the program %s', (address: PublicKey, name: string) => {
    expect(solanaLostRecipient(address.toBase58())).toBe(name);
  });

  it.each([
    SYSVAR_CLOCK_PUBKEY.toBase58(),
    SYSVAR_RENT_PUBKEY.toBase58(),
    SYSVAR_INSTRUCTIONS_PUBKEY.toBase58(),
    'Sysvar1111111111111111111111111111111111111',
    'SysvarEpochRewards1111111111111111111111111',
  ])('refuses the sysvar %s by its prefix', (address) => {
    expect(solanaLostRecipient(address)).toBe('a sysvar');
  });

  it('lists only canonical 32-byte addresses (a typo would never match)', () => {
    for (const address of Object.keys(SOLANA_KNOWN_PROGRAMS)) {
      expect(new PublicKey(address).toBase58()).toBe(address);
    }
  });

  it('knows nothing against a wallet, nor against inherited property names', () => {
    expect(solanaLostRecipient(Keypair.generate().publicKey.toBase58())).toBeNull();
    expect(solanaLostRecipient('constructor')).toBeNull();
  });
});
