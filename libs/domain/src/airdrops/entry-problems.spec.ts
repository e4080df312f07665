import { AppError } from '@app/common';
import { checkEntries } from './entry-problems';

const even = (value: number, index: number): number => {
  if (value % 2) throw AppError.badRequest(`items[${index}] must be even.`);
  return value / 2;
};

describe('checkEntries', () => {
  it('returns every entry checked when none is bad', () => {
    expect(checkEntries([2, 4, 6], even)).toEqual([1, 2, 3]);
  });

  it('names every bad entry by index in one 400', () => {
    const attempt = () => checkEntries([2, 3, 4, 5], even);
    expect(attempt).toThrow(AppError);
    expect(attempt).toThrow('Invalid request body. items[1] must be even; items[3] must be even.');
  });

  it('names the first 20 bad entries and counts the rest', () => {
    const odd = Array.from({ length: 25 }, () => 1);
    let message = '';
    try {
      checkEntries(odd, even);
    } catch (error) {
      message = (error as AppError).message;
    }
    expect(message).toContain('items[19] must be even');
    expect(message).not.toContain('items[20]');
    expect(message).toMatch(/\(and 5 more bad entries\)\.$/);
  });

  it('lets anything but a refused entry through: a fault is not a bad entry', () => {
    expect(() =>
      checkEntries([1], () => {
        throw new Error('database down');
      }),
    ).toThrow('database down');
  });
});
