import { ChainReadCache } from './chain-read-cache';

const KEY = { group: 'base|0xabc', read: 'supply' };

/** A chain read that answers when told to, counting its calls. */
function deferredLoads() {
  const pending: ((value: number) => void)[] = [];
  let calls = 0;
  const load = () => {
    calls++;
    return new Promise<number>((resolve) => pending.push(resolve));
  };
  return { load, calls: () => calls, answer: (value: number) => pending.shift()!(value) };
}

describe('ChainReadCache', () => {
  let now: number;
  let cache: ChainReadCache;

  beforeEach(() => {
    now = 1_000;
    cache = new ChainReadCache(2_000, 100, 100, () => now);
    cache.storing = true;
  });

  it('makes one chain call for concurrent readers of a key, then serves it until the TTL', async () => {
    const chain = deferredLoads();
    const readers = Array.from({ length: 20 }, () => cache.read(KEY, chain.load));
    chain.answer(7);
    const answers = await Promise.all(readers);
    expect(chain.calls()).toBe(1);
    expect(answers.every((answer) => answer.value === 7 && !answer.cached)).toBe(true);

    now += 1_999;
    expect(await cache.read(KEY, chain.load)).toEqual({
      value: 7,
      asOf: new Date(1_000),
      cached: true,
    });
    now += 1;
    const expired = cache.read(KEY, chain.load);
    chain.answer(8);
    expect(await expired).toMatchObject({ value: 8, cached: false });
    expect(chain.calls()).toBe(2);
  });

  it('reads live on request, and the live answer serves the readers after it', async () => {
    const chain = deferredLoads();
    const first = cache.read(KEY, chain.load);
    chain.answer(1);
    await first;
    const live = cache.read(KEY, chain.load, true);
    chain.answer(2);
    expect(await live).toMatchObject({ value: 2, cached: false });
    expect(await cache.read(KEY, chain.load)).toMatchObject({ value: 2, cached: true });
    expect(chain.calls()).toBe(2);
  });

  it('drops an invalidated group, and does not keep a read that was on its way meanwhile', async () => {
    const chain = deferredLoads();
    const first = cache.read(KEY, chain.load);
    chain.answer(1);
    await first;
    const before = cache.read({ ...KEY, read: 'other' }, chain.load);
    cache.invalidate([KEY.group]);
    chain.answer(1);
    await before;

    const after = cache.read(KEY, chain.load);
    chain.answer(5);
    expect(await after).toMatchObject({ value: 5, cached: false });
    const other = cache.read({ ...KEY, read: 'other' }, chain.load);
    expect(chain.calls()).toBe(4); // the read on its way at the invalidation was not kept
    chain.answer(6);
    expect(await other).toMatchObject({ value: 6, cached: false });
    cache.invalidate(['base|0xother']);
    expect(await cache.read(KEY, chain.load)).toMatchObject({ value: 5, cached: true });
  });

  it('keeps nothing until it stores, and nothing of a failed read', async () => {
    cache.storing = false;
    const chain = deferredLoads();
    const first = cache.read(KEY, chain.load);
    chain.answer(1);
    await first;
    const failing = cache.read(KEY, () => Promise.reject(new Error('rpc down')));
    await expect(failing).rejects.toThrow('rpc down');
    cache.storing = true;
    const again = cache.read(KEY, chain.load);
    chain.answer(2);
    expect(await again).toMatchObject({ value: 2, cached: false });
    expect(chain.calls()).toBe(2);
  });

  it('keeps nothing with a TTL of 0, but still shares a read in flight', async () => {
    cache = new ChainReadCache(0, 100, 100, () => now);
    cache.storing = true;
    const chain = deferredLoads();
    const readers = [cache.read(KEY, chain.load), cache.read(KEY, chain.load)];
    chain.answer(3);
    await Promise.all(readers);
    const next = cache.read(KEY, chain.load);
    chain.answer(4);
    expect(await next).toMatchObject({ value: 4, cached: false });
    expect(chain.calls()).toBe(2);
  });
});
