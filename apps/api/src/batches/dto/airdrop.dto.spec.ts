import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppError } from '@app/common';
import { BodyValidationPipe } from '../../http/body-validation.pipe';
import { TokenAirdropDto, TokenAirdropEntryDto, isTokenAirdropEntry } from './airdrop.dto';

const SOLANA = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';

/** Entries near every edge of the two fields' rules, and shapes around them. */
const HARD_ENTRIES: unknown[] = [
  { recipient: SOLANA, amount: '1' },
  { recipient: EVM, amount: 0.5 },
  { recipient: SOLANA, amount: ' 12.5 ' },
  { recipient: SOLANA, amount: '1.' },
  { recipient: SOLANA, amount: '.5' },
  { recipient: SOLANA, amount: '-1' },
  { recipient: SOLANA, amount: '1e3' },
  { recipient: SOLANA, amount: '' },
  { recipient: SOLANA, amount: 0 },
  { recipient: SOLANA, amount: -2 },
  { recipient: SOLANA, amount: Number.NaN },
  { recipient: SOLANA, amount: Number.POSITIVE_INFINITY },
  { recipient: SOLANA, amount: null },
  { recipient: SOLANA, amount: true },
  { recipient: SOLANA, amount: ['1'] },
  { recipient: SOLANA },
  { amount: '1' },
  { recipient: SOLANA.slice(0, 31), amount: '1' },
  { recipient: `${SOLANA}x`, amount: '1' },
  { recipient: `${SOLANA} `, amount: '1' },
  { recipient: `${EVM}0`, amount: '1' },
  { recipient: EVM.replace('0x', '0X'), amount: '1' },
  { recipient: 12345, amount: '1' },
  { recipient: SOLANA, amount: '1', memo: 'extra' },
  { recipient: SOLANA, amount: '1', constructor: 'x' },
  Object.assign(Object.create(null) as object, { recipient: SOLANA, amount: '1' }),
  [SOLANA, '1'],
  SOLANA,
  null,
];

function classValidatorAccepts(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return false;
  const instance = plainToInstance(TokenAirdropEntryDto, entry);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
  return errors.length === 0;
}

describe('isTokenAirdropEntry', () => {
  it.each(HARD_ENTRIES.map((entry, i) => [i, entry]))(
    'accepts entry %i only where TokenAirdropEntryDto does',
    (_i, entry) => {
      if (isTokenAirdropEntry(entry)) expect(classValidatorAccepts(entry)).toBe(true);
    },
  );

  it('accepts the plain entries every airdrop sends', () => {
    expect(isTokenAirdropEntry({ recipient: SOLANA, amount: '1.5' })).toBe(true);
    expect(isTokenAirdropEntry({ amount: 3, recipient: EVM })).toBe(true);
  });
});

describe('BodyValidationPipe on a token airdrop', () => {
  const pipe = new BodyValidationPipe();
  const body = { type: 'body' as const, metatype: TokenAirdropDto };
  const entries = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ recipient: SOLANA, amount: String(i + 1) }));

  it('takes 10,000 good entries as they are, and the rest of the body as validated', async () => {
    const recipients = entries(10_000);
    const result = (await pipe.transform(
      { network: 'solana', recipients },
      body,
    )) as TokenAirdropDto;
    expect(result).toBeInstanceOf(TokenAirdropDto);
    expect(result.network).toBe('solana');
    expect(result.recipients).toEqual(recipients);
  });

  it('still refuses the rest of the body: an unknown network', async () => {
    await expect(
      pipe.transform({ network: 'nowhere', recipients: entries(2) }, body),
    ).rejects.toThrow(AppError);
  });

  it('names a bad entry as class-validator does, the others passing', async () => {
    const recipients = entries(5_000);
    recipients[4_321] = { recipient: SOLANA, amount: '-3' };
    await expect(pipe.transform({ recipients }, body)).rejects.toThrow(
      'recipients[4321].amount must be a positive number or decimal string',
    );
  });

  it('refuses an entry with a field it does not declare', async () => {
    const recipients: object[] = entries(3);
    recipients[1] = { ...recipients[1], memo: 'x' };
    await expect(pipe.transform({ recipients }, body)).rejects.toThrow(/memo/);
  });

  it('refuses too many entries and none', async () => {
    await expect(pipe.transform({ recipients: entries(10_001) }, body)).rejects.toThrow(/10000/);
    await expect(pipe.transform({ recipients: [] }, body)).rejects.toThrow(AppError);
  });
});
