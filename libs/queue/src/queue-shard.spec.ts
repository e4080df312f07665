import { queueShardOf } from './queue-shard';

describe('queueShardOf', () => {
  it('is a fixed function of the address: known values, any process', () => {
    // FNV-1a of "a" is 0xe40c292c and of "" 0x811c9dc5: pinned so a change of hash is noticed
    // (it would move every queued wallet to another shard).
    expect(queueShardOf('a', 2 ** 31)).toBe(0xe40c292c % 2 ** 31);
    expect(queueShardOf('', 1_000)).toBe(0x811c9dc5 % 1_000);
  });

  it('ignores the case of the address (checksummed EVM addresses)', () => {
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    expect(queueShardOf(address, 7)).toBe(queueShardOf(address.toLowerCase(), 7));
  });

  it('stays within 0..shards-1 and puts everything in shard 0 of one', () => {
    for (let i = 0; i < 200; i++) {
      const shard = queueShardOf(`wallet-${i}`, 5);
      expect(shard).toBeGreaterThanOrEqual(0);
      expect(shard).toBeLessThan(5);
      expect(queueShardOf(`wallet-${i}`, 1)).toBe(0);
    }
  });

  it('spreads many wallets over the shards about evenly', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4_000; i++) {
      const address = '0x' + (i * 2654435761).toString(16).padStart(40, '0');
      counts[queueShardOf(address, 4)]++;
    }
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it('refuses a shard count that is not a positive integer', () => {
    expect(() => queueShardOf('a', 0)).toThrow(RangeError);
    expect(() => queueShardOf('a', 1.5)).toThrow(RangeError);
  });
});
