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
});
