import { AppError } from '@app/common';
import { storeThroughCut } from './store-through-cut';

const row = { noun: 'operation', id: 'op-1', path: '/operations/op-1' } as const;
const cut = new Error('Connection terminated unexpectedly');
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
  code: 'ECONNREFUSED',
});
const failing = (error: Error) => () => Promise.reject(error);

describe('storeThroughCut', () => {
  it("returns the store's own result when it is answered", async () => {
    await expect(
      storeThroughCut(
        async () => 'earlier',
        null,
        async () => null,
        row,
      ),
    ).resolves.toBe('earlier');
  });

  it('answers as stored when the row is there after a cut (the commit landed)', async () => {
    const readBack = jest.fn(async () => ({ id: 'op-1' }));
    await expect(storeThroughCut(failing(cut), null, readBack, row)).resolves.toBeNull();
    expect(readBack).toHaveBeenCalledTimes(1);
  });

  it('says the outcome is unknown, naming the row, when it is not there or not readable', async () => {
    for (const readBack of [async () => null, failing(cut)]) {
      const error = await storeThroughCut(failing(cut), null, readBack, row).catch((e) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
      expect(error.message).toMatch(/not known\. If it was, it is operation op-1: retry/);
    }
  });

  it('leaves a connection never made, and any other error, as they are', async () => {
    const readBack = jest.fn(async () => null);
    await expect(storeThroughCut(failing(refused), null, readBack, row)).rejects.toBe(refused);
    const constraint = Object.assign(new Error('duplicate key'), { code: '23505' });
    await expect(storeThroughCut(failing(constraint), null, readBack, row)).rejects.toBe(
      constraint,
    );
    expect(readBack).not.toHaveBeenCalled();
  });
});
