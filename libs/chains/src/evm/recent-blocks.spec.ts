import { RecentBlocks } from './recent-blocks';

describe('RecentBlocks', () => {
  let now: number;
  let recent: RecentBlocks;

  beforeEach(() => {
    now = 1_000_000;
    recent = new RecentBlocks(60_000, () => now);
  });

  it('knows the hashes of the blocks read within its time, and forgets them after', () => {
    recent.add(['0xa', '0xb']);
    now += 30_000;
    recent.add(['0xc']);
    expect(['0xa', '0xb', '0xc', '0xd'].map((hash) => recent.has(hash))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    now += 30_001;
    expect(['0xa', '0xb', '0xc'].map((hash) => recent.has(hash))).toEqual([false, false, true]);
    now += 30_000;
    expect(recent.has('0xc')).toBe(false);
  });

  it('keeps a hash read in two blocks until the later one is forgotten', () => {
    recent.add(['0xa']);
    now += 40_000;
    recent.add(['0xa']); // mined again at another height after a reorg
    now += 30_000;
    expect(recent.has('0xa')).toBe(true);
    now += 30_001;
    expect(recent.has('0xa')).toBe(false);
  });

  it('stays right across many blocks forgotten at once', () => {
    for (let i = 0; i < 5_000; i++) {
      recent.add([`0x${i.toString(16)}`]);
      now += 20;
    }
    // Read over 100 s: the last 60 s of them (3,000 blocks) are known.
    expect(recent.has('0x0')).toBe(false);
    expect(recent.has(`0x${(1_999).toString(16)}`)).toBe(false);
    expect(recent.has(`0x${(2_000).toString(16)}`)).toBe(true);
    expect(recent.has(`0x${(4_999).toString(16)}`)).toBe(true);
  });
});
