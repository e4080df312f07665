import { fairShare, planShards } from './shard-plan';

describe('fairShare', () => {
  it('splits the shards evenly, the remainder to the first workers by id', () => {
    expect(fairShare(4, 1, 0)).toBe(4);
    expect([0, 1].map((rank) => fairShare(4, 2, rank))).toEqual([2, 2]);
    expect([0, 1, 2].map((rank) => fairShare(4, 3, rank))).toEqual([2, 1, 1]);
    expect([0, 1, 2].map((rank) => fairShare(6, 3, rank))).toEqual([2, 2, 2]);
    expect([0, 1, 2, 3, 4].map((rank) => fairShare(4, 5, rank))).toEqual([1, 1, 1, 1, 0]);
  });

  it('hands out every shard, whatever the number of workers', () => {
    for (let workers = 1; workers <= 9; workers++) {
      const shares = Array.from({ length: workers }, (_, rank) => fairShare(7, workers, rank));
      expect(shares.reduce((a, b) => a + b, 0)).toBe(7);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
  });

  it('gives a worker that sees no live worker (not even itself yet) every shard', () => {
    expect(fairShare(4, 0, 0)).toBe(4);
  });
});

describe('planShards', () => {
  it('takes free shards up to the share', () => {
    expect(planShards({ shards: 6, liveWorkers: 3, rank: 0, owned: [], releasing: 0 })).toEqual({
      release: [],
      acquire: 2,
    });
    expect(planShards({ shards: 6, liveWorkers: 3, rank: 0, owned: [4], releasing: 0 })).toEqual({
      release: [],
      acquire: 1,
    });
  });

  it('takes its part of the remainder only when first by id', () => {
    expect(
      planShards({ shards: 4, liveWorkers: 3, rank: 0, owned: [], releasing: 0 }).acquire,
    ).toBe(2);
    expect(
      planShards({ shards: 4, liveWorkers: 3, rank: 2, owned: [], releasing: 0 }).acquire,
    ).toBe(1);
  });

  it('holds steady at its share', () => {
    expect(planShards({ shards: 4, liveWorkers: 2, rank: 0, owned: [0, 3], releasing: 0 })).toEqual(
      {
        release: [],
        acquire: 0,
      },
    );
  });

  it('gives back the highest extra shards when a worker joins', () => {
    expect(
      planShards({ shards: 6, liveWorkers: 2, rank: 0, owned: [0, 1, 2, 3, 4, 5], releasing: 0 }),
    ).toEqual({
      release: [5, 4, 3],
      acquire: 0,
    });
  });

  it('counts shards still draining as held: nothing more taken, nothing released twice', () => {
    expect(
      planShards({ shards: 6, liveWorkers: 2, rank: 0, owned: [0, 1, 2], releasing: 3 }),
    ).toEqual({
      release: [],
      acquire: 0,
    });
    expect(planShards({ shards: 6, liveWorkers: 3, rank: 0, owned: [0, 1], releasing: 1 })).toEqual(
      {
        release: [],
        acquire: 0,
      },
    );
    expect(
      planShards({ shards: 6, liveWorkers: 3, rank: 0, owned: [0, 1, 2], releasing: 1 }),
    ).toEqual({
      release: [2],
      acquire: 0,
    });
    expect(planShards({ shards: 6, liveWorkers: 3, rank: 0, owned: [0], releasing: 1 })).toEqual({
      release: [],
      acquire: 0,
    });
    expect(planShards({ shards: 6, liveWorkers: 3, rank: 0, owned: [0], releasing: 0 })).toEqual({
      release: [],
      acquire: 1,
    });
  });
});
