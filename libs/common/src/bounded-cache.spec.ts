import { BoundedCache } from './bounded-cache';

describe('BoundedCache', () => {
  it('loads once, does not cache misses, and evicts the oldest entry past capacity', async () => {
    const cache = new BoundedCache<string>(2);
    const load = jest.fn(async (value: string | null) => value);
    expect(await cache.getOrLoad('a', () => load('A'))).toBe('A');
    expect(await cache.getOrLoad('a', () => load('other'))).toBe('A');
    expect(await cache.getOrLoad('missing', () => load(null))).toBeNull();
    expect(await cache.getOrLoad('missing', () => load('now'))).toBe('now');
    await cache.getOrLoad('c', () => load('C'));
    expect(await cache.getOrLoad('a', () => load('A2'))).toBe('A2');
    expect(load).toHaveBeenCalledTimes(5);
  });

  it('keeps only the values its caller calls final', async () => {
    const cache = new BoundedCache<{ status: string }>();
    const settled = (value: { status: string }) => value.status === 'confirmed';
    const load = jest
      .fn<Promise<{ status: string }>, []>()
      .mockResolvedValueOnce({ status: 'queued' })
      .mockResolvedValueOnce({ status: 'confirmed' })
      .mockResolvedValueOnce({ status: 'other' });
    expect(await cache.getOrLoad('op', load, settled)).toEqual({ status: 'queued' });
    expect(await cache.getOrLoad('op', load, settled)).toEqual({ status: 'confirmed' });
    expect(await cache.getOrLoad('op', load, settled)).toEqual({ status: 'confirmed' });
    expect(load).toHaveBeenCalledTimes(2);
  });
});
