import type { AssetIntent } from '@app/common';
import { ChainRejection } from '../chain-rejection';
import { solanaErrorToAppError } from './solana-errors';

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const ATA = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const UNKNOWN = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const PROGRAMS = [COMPUTE_BUDGET, COMPUTE_BUDGET, ATA, TOKEN_2022, UNKNOWN];
const MINT: AssetIntent = {
  kind: 'token.mint',
  asset: 'So11111111111111111111111111111111111111112',
  recipient: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
  amount: '1',
  decimals: 0,
};

/** The client's message: plain words, no JSON, no braces or brackets of the chain's answer. */
function expectPlain(message: string): void {
  expect(message).not.toMatch(/[{}[\]"]/);
  expect(message.length).toBeLessThan(200);
}

describe('solanaErrorToAppError', () => {
  it('words the refusal of the finding (a 502 carried the raw InstructionError)', () => {
    const err = { InstructionError: [2, 'IncorrectProgramId'] } as const;
    const error = solanaErrorToAppError(err, PROGRAMS, MINT);
    expect(error).toBeInstanceOf(ChainRejection);
    expect(error.code).toBe('BAD_GATEWAY');
    expect(error.message).toBe(
      'The Associated Token Account program rejected the transaction (instruction 2: incorrect program id).',
    );
    expectPlain(error.message);
    // What the chain said stays whole for the log.
    expect(error.detail).toBe('{"InstructionError":[2,"IncorrectProgramId"]}');
  });

  it('names a custom error by its number, and an unknown program as such', () => {
    const error = solanaErrorToAppError(
      { InstructionError: [4, { Custom: 6001 }] },
      PROGRAMS,
      MINT,
    );
    expect(error.message).toBe(
      'A Solana program rejected the transaction (instruction 4: custom error 6001).',
    );
  });

  it("names the System program's errors", () => {
    const programs = [COMPUTE_BUDGET, '11111111111111111111111111111111'];
    const error = solanaErrorToAppError({ InstructionError: [1, { Custom: 0 }] }, programs, MINT);
    expect(error.message).toBe(
      'The System program rejected the transaction (instruction 1: account already in use).',
    );
  });

  it('words a refusal of the whole transaction without its payload', () => {
    expect(solanaErrorToAppError('AccountInUse', PROGRAMS, MINT).message).toBe(
      'The chain rejected the transaction (account in use).',
    );
    const error = solanaErrorToAppError({ DuplicateInstruction: 3 }, PROGRAMS, MINT);
    expect(error.message).toBe('The chain rejected the transaction (duplicate instruction).');
  });

  it('quotes nothing that is not a variant name', () => {
    const hostile = { InstructionError: [2, { BorshIoError: '{"x":[1,2]}' }] };
    const error = solanaErrorToAppError(hostile, PROGRAMS, MINT);
    expect(error.message).toBe(
      'The Associated Token Account program rejected the transaction (instruction 2: borsh io error).',
    );
    const odd = solanaErrorToAppError({ '{"a":1}': [] }, PROGRAMS, MINT);
    expect(odd.message).toBe('The chain rejected the transaction.');
    const name = solanaErrorToAppError({ InstructionError: [9, 'Not a name {}'] }, PROGRAMS, MINT);
    expect(name.message).toBe('A Solana program rejected the transaction (instruction 9).');
  });

  it('keeps the contract statuses of mapped program errors', () => {
    const transfer: AssetIntent = { ...MINT, kind: 'token.transfer' };
    const error = solanaErrorToAppError(
      { InstructionError: [3, { Custom: 1 }] },
      PROGRAMS,
      transfer,
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.detail).toBe('{"InstructionError":[3,{"Custom":1}]}');
  });
});
