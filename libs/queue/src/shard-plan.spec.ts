import { fairShare, planShards } from './shard-plan';

describe('fairShare', () => {
  it('splits the shards evenly, rounding up', () => {
    expect(fairShare(4, 1)).toBe(4);
    expect(fairShare(4, 2)).toBe(2);
    expect(fairShare(4, 3)).toBe(2);
    expect(fairShare(6, 3)).toBe(2);
    expect(fairShare(4, 4)).toBe(1);
    expect(fairShare(4, 9)).toBe(1);
  });

  it('gives a worker that sees no live worker (not even itself yet) every shard', () => {
    expect(fairShare(4, 0)).toBe(4);
  });
});

describe('planShards', () => {
  it('takes free shards up to the share', () => {
    expect(planShards({ shards: 6, liveWorkers: 3, owned: [], releasing: 0 })).toEqual({
      release: [],
      acquire: 2,
    });
    expect(planShards({ shards: 6, liveWorkers: 3, owned: [4], releasing: 0 })).toEqual({
      release: [],
      acquire: 1,
    });
  });

  it('holds steady at its share', () => {
    expect(planShards({ shards: 4, liveWorkers: 2, owned: [0, 3], releasing: 0 })).toEqual({
      release: [],
      acquire: 0,
    });
  });

  it('gives back the highest extra shards when a worker joins', () => {
    expect(
      planShards({ shards: 6, liveWorkers: 2, owned: [0, 1, 2, 3, 4, 5], releasing: 0 }),
    ).toEqual({
      release: [5, 4, 3],
      acquire: 0,
    });
  });

  it('counts shards still draining as held: nothing more taken, nothing released twice', () => {
    expect(planShards({ shards: 6, liveWorkers: 2, owned: [0, 1, 2], releasing: 3 })).toEqual({
      release: [],
      acquire: 0,
    });
    expect(planShards({ shards: 6, liveWorkers: 3, owned: [0, 1], releasing: 1 })).toEqual({
      release: [],
      acquire: 0,
    });
    expect(planShards({ shards: 6, liveWorkers: 3, owned: [0, 1, 2], releasing: 1 })).toEqual({
      release: [2],
      acquire: 0,
    });
    expect(planShards({ shards: 6, liveWorkers: 3, owned: [0], releasing: 1 })).toEqual({
      release: [],
      acquire: 0,
    });
    expect(planShards({ shards: 6, liveWorkers: 3, owned: [0], releasing: 0 })).toEqual({
      release: [],
      acquire: 1,
    });
  });
});
