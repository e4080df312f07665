import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000;
  });

  it('serves a value until its time to live is over', () => {
    const cache = new TtlCache<string>(100, 10, clock);
    cache.set('a', 'A');
    now += 99;
    expect(cache.get('a')).toBe('A');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
  });

  it('drops one entry by its key', () => {
    const cache = new TtlCache<string>(100, 10, clock);
    cache.set('a', 'A');
    cache.set('b', 'B');
    cache.delete('a');
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, 'B']);
  });

  it('drops the entries whose value matches', () => {
    const cache = new TtlCache<{ id: string }>(100, 10, clock);
    cache.set('a', { id: 'k1' });
    cache.set('b', { id: 'k2' });
    cache.set('c', { id: 'k1' });
    cache.deleteWhere((value) => value.id === 'k1');
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([
      undefined,
      { id: 'k2' },
      undefined,
    ]);
  });

  it('keeps at most its capacity, the oldest going first', () => {
    const cache = new TtlCache<number>(100, 2, clock);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
  });
});
